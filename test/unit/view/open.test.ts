/** --open: the opener each platform uses, and the override tests and users can set. */
import { expect, it } from "vitest";
import { openerFor } from "../../../src/view/open.js";

it("opens with xdg-open on Linux, open on macOS, start on Windows", () => {
  expect(openerFor("linux", "/tmp/v.html")).toEqual({ command: "xdg-open", args: ["/tmp/v.html"] });
  expect(openerFor("freebsd", "/tmp/v.html").command).toBe("xdg-open");
  expect(openerFor("darwin", "/tmp/v.html")).toEqual({ command: "open", args: ["/tmp/v.html"] });
  expect(openerFor("win32", "C:\\v.html")).toEqual({ command: "cmd", args: ["/c", "start", '""', "C:\\v.html"] });
});

it("uses BLACKBOX_VIEW_OPENER when it is set", () => {
  expect(openerFor("linux", "/tmp/v.html", { BLACKBOX_VIEW_OPENER: "firefox" })).toEqual({
    command: "firefox",
    args: ["/tmp/v.html"],
  });
  expect(openerFor("darwin", "/tmp/v.html", { BLACKBOX_VIEW_OPENER: "" }).command).toBe("open");
});
