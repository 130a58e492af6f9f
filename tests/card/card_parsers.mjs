// Loads the tool card's pure functions (resources/widgets/tool-card/parsers.js) the way the page runs
// them: as plain script, in a context of their own (the page inlines the file inside its script).
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const file = new URL('../../resources/widgets/tool-card/parsers.js', import.meta.url);

export function loadParsers() {
  const context = vm.createContext({ URL });
  vm.runInContext(`"use strict";\n${readFileSync(file, 'utf8')}`, context, { filename: file.pathname });
  return context;
}

// Values made in the parsers' context, as plain data of this one (deepStrictEqual compares prototypes).
export const plain = (v) => JSON.parse(JSON.stringify(v));
