// Builds the panel's browser files (npm run build): the client library
// workspace/static/workspace/panel.js (an ES module bundling the pinned npm
// packages), the page's script panel-page.js (importing the library beside
// it), and THIRD_PARTY_LICENSES.txt, the licences of the packages bundled.
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

const library = await build({
  ...common,
  entryPoints: [join(here, "index.js")],
  outfile: join(out, "panel.js"),
  metafile: true,
});
await build({
  ...common,
  entryPoints: [join(here, "page.js")],
  outfile: join(out, "panel-page.js"),
  // page.js imports the library by its built name: keep the import as written.
  plugins: [{ name: "library", setup: (b) => b.onResolve({ filter: /^\.\/panel\.js$/ }, (a) => ({ path: a.path, external: true })) }],
});

function packageOf(input) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  return match ? match[1] : null;
}

const packages = [...new Set(Object.keys(library.metafile.inputs).map(packageOf).filter(Boolean))].sort();
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
  `Third-party code bundled into panel.js by ${relative(top, join(here, "build.mjs"))}:\n\n${sections.join("\n")}`,
);
console.log(`built panel.js, panel-page.js and THIRD_PARTY_LICENSES.txt (${packages.join(", ")})`);
