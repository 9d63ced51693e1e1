import { defineConfig } from "@ardaulas/blackbox/config";

export default defineConfig({
  tools: [{ module: "./tools.mjs", exports: ["get_weather", "book_hotel"] }],
});
