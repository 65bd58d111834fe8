'use strict';
// Loads the extension's grammar into the engine VS Code itself uses (vscode-textmate, with Oniguruma compiled to
// WebAssembly by vscode-oniguruma) and tokenizes text line by line, as the editor does.

// vscode-textmate notices a rule that matches without advancing (it then gives up on the rest of the line) but
// says so only in its debug mode, which it reads from the environment when it is loaded: the tests turn it on
// and collect those reports as failures.
process.env.VSCODE_TEXTMATE_DEBUG = '1';

const fs = require('node:fs');
const path = require('node:path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const ROOT = path.join(__dirname, '..');
const GRAMMAR = path.join(ROOT, 'syntaxes', 'fsm.tmLanguage.json');
const SCOPE = 'source.fsm';
// A line that takes longer than this is reported (the editor would stop colouring it).
const LINE_TIME_LIMIT_MS = 2000;

let registryPromise = null;

function registry() {
  if (registryPromise === null) {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    const onigLib = oniguruma.loadWASM(wasm).then(() => ({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }));
    registryPromise = Promise.resolve(
      new vsctm.Registry({
        onigLib,
        loadGrammar: async (scopeName) => {
          if (scopeName !== SCOPE) {
            return null;
          }
          return vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR);
        },
      }),
    );
  }
  return registryPromise;
}

/** The grammar, compiled (a bad regular expression fails here or at the first line that reaches it). */
async function loadGrammar() {
  const grammar = await (await registry()).loadGrammar(SCOPE);
  if (!grammar) {
    throw new Error(`no grammar for ${SCOPE}`);
  }
  return grammar;
}

/**
 * Tokenizes `text` as the editor would: returns every line's tokens (`{ text, start, end, scopes }`), the lines
 * that stopped early (over the time limit), the engine's reports of rules that did not advance, and the scopes
 * an empty line would get after the text (just the grammar's root scope when every construct was closed).
 */
function tokenize(grammar, text) {
  const lines = text.split(/\r?\n/);
  // A trailing newline ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') {
    lines.pop();
  }
  const result = { lines: [], stoppedEarly: [], loops: [], after: [] };
  const { log, warn, error } = console;
  let lineNo = 0;
  // Debug mode also traces every match and times the slow ones (the first use of a regular expression compiles it).
  console.log = () => {};
  console.warn = () => {};
  console.error = (...args) => {
    const message = args.join(' ');
    if (/endless loop/i.test(message)) {
      result.loops.push({ line: lineNo + 1, message });
    }
  };
  try {
    let stack = vsctm.INITIAL;
    for (; lineNo < lines.length; lineNo++) {
      const line = lines[lineNo];
      const r = grammar.tokenizeLine(line, stack, LINE_TIME_LIMIT_MS);
      if (r.stoppedEarly) {
        result.stoppedEarly.push(lineNo + 1);
      }
      result.lines.push({
        text: line,
        tokens: r.tokens.map((t) => ({
          text: line.slice(t.startIndex, t.endIndex),
          start: t.startIndex,
          end: Math.min(t.endIndex, line.length),
          scopes: t.scopes,
        })),
      });
      stack = r.ruleStack;
    }
    result.after = grammar.tokenizeLine('', stack).tokens[0].scopes;
  } finally {
    console.log = log;
    console.warn = warn;
    console.error = error;
  }
  return result;
}

module.exports = { ROOT, GRAMMAR, SCOPE, loadGrammar, tokenize };
