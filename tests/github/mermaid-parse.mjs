// node mermaid-parse.mjs FILE.md...: parse the ```mermaid block of each
// Markdown file with the real Mermaid parser (npm mermaid, with jsdom for
// the DOM it expects). Prints FILE: ok (TYPE, N chars) or the parse error;
// exit 1 on any error.
import { JSDOM } from "jsdom";
import fs from "fs";
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window; globalThis.document = dom.window.document;
// DOMPurify and d3 look these up as globals (mermaid 11).
for (const k of ["Element", "HTMLElement", "Node", "DocumentFragment",
  "NodeFilter", "NamedNodeMap", "HTMLFormElement", "DOMParser",
  "SVGElement", "Text", "Comment"])
  if (!(k in globalThis)) globalThis[k] = dom.window[k];
globalThis.DOMPurify = undefined;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
let bad = 0;
for (const f of process.argv.slice(2)) {
  const md = fs.readFileSync(f, "utf8");
  const m = md.match(/```mermaid\n([\s\S]*?)```/);
  if (!m) { console.log(`${f}: no mermaid block`); bad++; continue; }
  try { const r = await mermaid.parse(m[1]); console.log(`${f}: ok (${r.diagramType}, ${m[1].length} chars)`); }
  catch (e) { console.log(`${f}: ${e.message || e}`); bad++; }
}
process.exit(bad ? 1 : 0);
