// Plain object (no defineConfig import): the hook names the wrapped tools from here.
export default { tools: [{ module: "./tools.mjs", exports: ["get_weather"] }] };
