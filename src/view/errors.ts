import { BlackboxError } from "../errors.js";

/** What `blackbox view` refuses (printed as `blackbox: <message>`, exit 1). */
export class ViewError extends BlackboxError {
  constructor(message: string) {
    super("BLACKBOX_USAGE", message);
  }
}
