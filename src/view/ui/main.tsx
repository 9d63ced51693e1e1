/** The page's entry: reads the view data and draws the viewer into #app. */
import { render } from "preact";
import { App } from "./App.js";
import { readViewData } from "./store.js";
import "./styles.css";

performance.mark("blackbox-view-start");
const root = document.getElementById("app")!;
try {
  render(<App data={readViewData()} />, root);
} catch (error) {
  root.textContent = `The viewer could not start: ${(error as Error).message}`;
  throw error;
}
