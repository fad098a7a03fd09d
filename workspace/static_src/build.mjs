// Builds the panel's browser files (npm run build): the client library
// workspace/static/workspace/panel.js (an ES module bundling the pinned npm
// packages), the code highlighter panel-highlight.js (that the library loads
// when a code block needs it), the page's script panel-page.js (importing the
// library beside it), and THIRD_PARTY_LICENSES.txt, the licences of the
// packages bundled.
// The output is minified and the same on every run for the same lock file.
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const top = join(here, "..", "..");
const out = join(top, "workspace", "static", "workspace");
const banner = "/* django-workspace panel. Bundled third-party code: see THIRD_PARTY_LICENSES.txt beside this file. */";
const common = {
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  charset: "utf8",
  legalComments: "none",
  banner: { js: banner },
  logLevel: "warning",
};

// A module that imports a sibling built file by its built name keeps the import as written.
const sibling = (name) => ({
  name: `sibling ${name}`,
  setup: (b) => b.onResolve({ filter: new RegExp(`^\\./${name.replace(".", "\\.")}$`) }, (a) => ({ path: a.path, external: true })),
});
const library = await build({
  ...common,
  entryPoints: [join(here, "index.js")],
  outfile: join(out, "panel.js"),
  metafile: true,
  plugins: [sibling("panel-highlight.js")],  // code.js loads it when a block needs it
});
const highlighter = await build({
  ...common,
  entryPoints: [join(here, "highlighter.js")],
  outfile: join(out, "panel-highlight.js"),
  metafile: true,
});
await build({
  ...common,
  entryPoints: [join(here, "page.js")],
  outfile: join(out, "panel-page.js"),
  plugins: [sibling("panel.js")],
});

function packageOf(input) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  return match ? match[1] : null;
}

const inputs = [...Object.keys(library.metafile.inputs), ...Object.keys(highlighter.metafile.inputs)];
const packages = [...new Set(inputs.map(packageOf).filter(Boolean))].sort();
const sections = packages.map((name) => {
  const folder = join(top, "node_modules", name);
  const meta = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const licences = readdirSync(folder).filter((file) => /^(licen[cs]e|copying)/i.test(file)).sort();
  if (!licences.length) throw new Error(`${name} has no licence file to ship`);
  const texts = licences.map((file) => `--- ${file} ---\n${readFileSync(join(folder, file), "utf8").trim()}\n`);
  return `==== ${name} ${meta.version} (${meta.license}) ====\n\n${texts.join("\n")}`;
});
writeFileSync(
  join(out, "THIRD_PARTY_LICENSES.txt"),
  `Third-party code bundled into panel.js and panel-highlight.js by ${relative(top, join(here, "build.mjs"))}:\n\n${sections.join("\n")}`,
);
console.log(`built panel.js, panel-highlight.js, panel-page.js and THIRD_PARTY_LICENSES.txt (${packages.join(", ")})`);
