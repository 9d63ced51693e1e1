/**
 * What a value that must never reach a cassette looks like: each detector a kind (the
 * placeholder's name) and a pattern. The default ones find credentials (on unless turned
 * off); the opt-in ones find personal data. A pattern's whole match is the secret (a
 * lookbehind keeps a URL parameter's name), and `check` can still refuse a match (Luhn for
 * cards). Pure.
 */

export interface Detector {
  /** The placeholder's kind: `<AWS_KEY_1>`. */
  kind: string;
  /** Non-capturing groups only: the detectors are joined into one pattern. */
  pattern: string;
  check?: (match: string) => boolean;
  /** What every match contains, as a plain pattern: a string without it is skipped at the cost of one fast scan. */
  hint: string;
}

/** Credentials of the major providers and clouds: on by default. */
export const DEFAULT_DETECTORS: readonly Detector[] = [
  {
    kind: "PRIVATE_KEY",
    hint: String.raw`PRIVATE KEY`,
    pattern: String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`,
  },
  { kind: "ANTHROPIC_KEY", hint: String.raw`sk-ant-`, pattern: String.raw`sk-ant-[A-Za-z0-9_-]{20,}` },
  {
    kind: "OPENAI_KEY",
    hint: String.raw`sk-`,
    pattern: String.raw`sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{32,}`,
  },
  {
    kind: "STRIPE_KEY",
    hint: String.raw`_(?:live|test)_`,
    pattern: String.raw`(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`,
  },
  { kind: "GOOGLE_KEY", hint: String.raw`AIza`, pattern: String.raw`AIza[0-9A-Za-z_-]{35}` },
  {
    kind: "AWS_KEY",
    hint: String.raw`A[KSRI][IOD]A`,
    pattern: String.raw`(?<![A-Z0-9])(?:AKIA|ASIA|AROA|AIDA)[A-Z0-9]{16}(?![A-Z0-9])`,
  },
  {
    kind: "AWS_SECRET",
    hint: String.raw`aws_secret_access_key`,
    pattern: String.raw`(?<=aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])`,
  },
  {
    // a SigV4 signature (an Authorization header's `Signature=`, a presigned URL's X-Amz-Signature has URL_SECRET)
    kind: "AWS_SIGNATURE",
    hint: String.raw`Signature=`,
    pattern: String.raw`(?<=\bSignature=)[0-9a-f]{64}(?![0-9a-f])`,
  },
  {
    kind: "GITHUB_TOKEN",
    hint: String.raw`gh[oprsu]_|github_pat_`,
    pattern: String.raw`(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}`,
  },
  { kind: "SLACK_TOKEN", hint: String.raw`xox`, pattern: String.raw`xox[abposr]-[A-Za-z0-9-]{10,}` },
  {
    kind: "JWT",
    hint: String.raw`eyJ`,
    pattern: String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  },
  { kind: "BEARER", hint: String.raw`[Bb]earer`, pattern: String.raw`(?<=\b[Bb]earer\s+)[A-Za-z0-9._~+/-]{16,}=*` },
  {
    kind: "URL_SECRET",
    hint: String.raw`[?&]`,
    pattern: String.raw`(?<=[?&](?:sig|signature|token|access_token|id_token|refresh_token|api_key|apikey|key|secret|password|code|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&#\s"'<>]{6,}`,
  },
];

/** Personal data: each turned on by name (`detect: ["email"]`). */
export const OPT_IN_DETECTORS: Readonly<Record<string, Detector>> = {
  email: {
    kind: "EMAIL",
    hint: String.raw`@`,
    pattern: String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`,
  },
  phone: {
    kind: "PHONE",
    hint: String.raw`\d[ .-]\d`,
    pattern: String.raw`(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}[ .-]\d{3,4}[ .-]?\d{3,4}(?![\w])`,
  },
  card: { kind: "CARD", hint: String.raw`\d{4}`, pattern: String.raw`(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)`, check: luhn },
  ip: {
    kind: "IP",
    hint: String.raw`\d\.\d`,
    pattern: String.raw`(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])`,
  },
};

export type OptInDetector = keyof typeof OPT_IN_DETECTORS;

/** The Luhn checksum a card number passes (so an order number of 16 digits is left alone). */
export function luhn(text: string): boolean {
  const digits = text.replace(/[ -]/g, "");
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}
