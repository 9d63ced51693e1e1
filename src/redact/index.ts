/** Redaction on the write path: rules, detectors and the redactor a run writes (and a replay compares) through. */
export { createRedactor, kindOf, MIN_LITERAL, type Redactor } from "./redactor.js";
export { DEFAULT_DETECTORS, OPT_IN_DETECTORS, type OptInDetector } from "./detectors.js";
export { redactRulesProblem, type RedactRules, type RedactPathRule, type RedactPattern } from "./rules.js";
export { placeholdersIn, redactedSummary, redactTrace, type RedactedCassette } from "./cassette.js";
