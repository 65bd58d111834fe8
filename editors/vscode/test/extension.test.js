'use strict';
// The extension's manifest and client, outside VS Code: the manifest's contributions point at files that exist
// and agree with each other, and `activate` starts `fsmc lsp` as configured. The `vscode` module exists only
// inside the editor, so these tests stand in a recording fake for it and for the language client (the client
// talking to the real server is what the Neovim end-to-end test in the Rust test suite covers).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const ROOT = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

test('the manifest contributes the language, its grammar and its configuration', () => {
  const [language] = manifest.contributes.languages;
  assert.equal(language.id, 'fsm');
  assert.deepEqual(language.extensions, ['.fsm']);
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.language, 'fsm');
  const tm = JSON.parse(fs.readFileSync(path.join(ROOT, grammar.path), 'utf8'));
  assert.equal(tm.scopeName, grammar.scopeName);
  assert.ok(fs.existsSync(path.join(ROOT, manifest.main)), `no ${manifest.main}`);
  const props = manifest.contributes.configuration.properties;
  assert.equal(props['fsmc.path'].default, 'fsmc');
  assert.equal(props['fsmc.path'].type, 'string');
  // The language client reads `<id>.trace.server`; the client's id is `fsmc`.
  assert.ok(props['fsmc.trace.server']);
  assert.ok(require.resolve('vscode-languageclient/node'), 'vscode-languageclient is not installed');
});

test('the server\'s semantic tokens are themed with scopes the grammar uses', async () => {
  // Where the server runs, its semantic tokens take over the colouring; mapped to the grammar's own scopes, the
  // colours stay those the grammar gave before the server's first answer.
  const { loadGrammar, tokenize } = require('./textmate');
  const fixture = fs.readFileSync(path.join(__dirname, 'fixtures', 'showcase.fsm'), 'utf8');
  const produced = new Set();
  for (const line of tokenize(await loadGrammar(), fixture).lines) {
    for (const t of line.tokens) {
      t.scopes.forEach((s) => produced.add(s.replace(/\.fsm$/, '')));
    }
  }
  const [mapping] = manifest.contributes.semanticTokenScopes;
  assert.equal(mapping.language, 'fsm');
  for (const [type, scopes] of Object.entries(mapping.scopes)) {
    for (const scope of scopes) {
      const stem = scope.replace(/\.fsm$/, '');
      assert.ok(
        [...produced].some((p) => p === stem || p.startsWith(`${stem}.`)),
        `${type} is themed as ${scope}, which the grammar never produces`,
      );
    }
  }
  // The server's token types (compiler/cli/src/lsp/outline.rs) whose default scopes differ from the grammar's.
  for (const type of ['class', 'enumMember', 'event', 'property', 'decorator', 'enum', 'macro', 'keyword']) {
    assert.ok(mapping.scopes[type], `no scope for the server's \`${type}\` tokens`);
  }
});

test('the language configuration is valid and indents blocks', () => {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'language-configuration.json'), 'utf8'));
  assert.equal(config.comments.lineComment, '//');
  assert.deepEqual(config.comments.blockComment, ['/*', '*/']);
  const increase = new RegExp(config.indentationRules.increaseIndentPattern);
  const decrease = new RegExp(config.indentationRules.decreaseIndentPattern);
  assert.ok(increase.test('machine PriceAbciApp: abci {'));
  assert.ok(increase.test('    start default state A: voting { // the first round'));
  assert.ok(!increase.test('    state A { reads k; }'));
  assert.ok(!increase.test('    payload "{";'));
  assert.ok(!increase.test('    /// a doc comment {'));
  assert.ok(decrease.test('    }'));
  assert.ok(!decrease.test('    state A;'));
  const word = new RegExp(`^(?:${config.wordPattern})$`);
  for (const w of ['CollectPriceRound', 'NO_MAJORITY', 'cross_period', '30s', '1.5m', '500ms']) {
    assert.ok(word.test(w), `\`${w}\` is not one word`);
  }
  assert.ok(!word.test('a->b'));
  const doc = config.onEnterRules.find((r) => r.action.appendText === '/// ');
  assert.ok(new RegExp(doc.beforeText).test('    /// The round decided.'));
  assert.ok(!new RegExp(doc.beforeText).test('    //// not a doc comment'));
  for (const [open, close] of config.brackets) {
    assert.ok(config.autoClosingPairs.some((p) => p.open === open && p.close === close));
  }
});

/** Loads extension.js against fakes of `vscode` and the language client that record what it does. */
function loadWithFakes({ settings = {}, folders = [], startError = null } = {}) {
  const log = { clients: [], commands: new Map(), errors: [], configListeners: [], watchers: [] };
  class FakeClient {
    constructor(id, name, serverOptions, clientOptions) {
      Object.assign(this, { id, name, serverOptions, clientOptions, started: 0, stopped: 0 });
      log.clients.push(this);
    }
    async start() {
      this.started++;
      if (startError) {
        throw startError;
      }
    }
    async stop() {
      this.stopped++;
    }
  }
  const vscode = {
    workspace: {
      workspaceFolders: folders.map((f) => ({ uri: { fsPath: f } })),
      getConfiguration: (section) => {
        assert.equal(section, 'fsmc');
        return { get: (key) => settings[key] };
      },
      createFileSystemWatcher: (glob) => {
        log.watchers.push(glob);
        return { glob, dispose() {} };
      },
      onDidChangeConfiguration: (listener) => {
        log.configListeners.push(listener);
        return { dispose() {} };
      },
    },
    commands: {
      registerCommand: (name, fn) => {
        log.commands.set(name, fn);
        return { dispose() {} };
      },
    },
    window: { showErrorMessage: (message) => log.errors.push(message) },
  };
  const fakes = { vscode, 'vscode-languageclient/node': { LanguageClient: FakeClient } };
  const realLoad = Module._load;
  Module._load = function load(request, ...rest) {
    return Object.hasOwn(fakes, request) ? fakes[request] : realLoad.call(this, request, ...rest);
  };
  const file = path.join(ROOT, manifest.main);
  delete require.cache[require.resolve(file)];
  try {
    return { extension: require(file), log };
  } finally {
    Module._load = realLoad;
  }
}

function fakeContext() {
  return { subscriptions: [] };
}

test('activate starts `fsmc lsp` for .fsm files', async () => {
  const { extension, log } = loadWithFakes({ settings: { searchPaths: ['vendor/specs'] } });
  const context = fakeContext();
  await extension.activate(context);
  assert.equal(log.clients.length, 1);
  const c = log.clients[0];
  assert.equal(c.id, 'fsmc');
  assert.deepEqual(c.serverOptions.run, { command: 'fsmc', args: ['lsp'] });
  assert.deepEqual(c.serverOptions.debug, c.serverOptions.run);
  assert.deepEqual(c.clientOptions.documentSelector, [{ scheme: 'file', language: 'fsm' }]);
  assert.deepEqual(c.clientOptions.initializationOptions, { searchPaths: ['vendor/specs'] });
  assert.deepEqual(log.watchers, ['**/*.{fsm,yaml,yml}']);
  assert.equal(c.clientOptions.synchronize.fileEvents.glob, '**/*.{fsm,yaml,yml}');
  assert.equal(c.started, 1);
  assert.deepEqual(log.errors, []);
  // Every command the manifest declares is registered, and nothing else.
  assert.deepEqual(
    [...log.commands.keys()].sort(),
    manifest.contributes.commands.map((cmd) => cmd.command).sort(),
  );
  assert.equal(context.subscriptions.length, 3);
  await extension.deactivate();
  assert.equal(c.stopped, 1);
});

test('fsmc.path: a name, an absolute path, or a path relative to the workspace', async () => {
  const workspace = path.join(path.sep, 'home', 'dev', 'fsmc');
  const cases = [
    [undefined, 'fsmc'],
    ['  ', 'fsmc'],
    ['fsmc-nightly', 'fsmc-nightly'],
    [path.join(path.sep, 'opt', 'fsmc', 'bin', 'fsmc'), path.join(path.sep, 'opt', 'fsmc', 'bin', 'fsmc')],
    ['target/debug/fsmc', path.join(workspace, 'target', 'debug', 'fsmc')],
  ];
  for (const [setting, expected] of cases) {
    const { extension, log } = loadWithFakes({ settings: { path: setting }, folders: [workspace] });
    await extension.activate(fakeContext());
    assert.equal(log.clients[0].serverOptions.run.command, expected, `fsmc.path = ${JSON.stringify(setting)}`);
    await extension.deactivate();
  }
  // Without a workspace folder a relative path is left to the operating system.
  const { extension } = loadWithFakes();
  assert.equal(extension.serverCommand('bin/fsmc', undefined), 'bin/fsmc');
});

test('a server that cannot start is reported, with the setting to fix', async () => {
  const { extension, log } = loadWithFakes({
    settings: { path: '/nowhere/fsmc' },
    startError: new Error('spawn /nowhere/fsmc ENOENT'),
  });
  await extension.activate(fakeContext());
  assert.equal(log.errors.length, 1);
  assert.match(log.errors[0], /\/nowhere\/fsmc lsp/);
  assert.match(log.errors[0], /ENOENT/);
  assert.match(log.errors[0], /fsmc\.path/);
  // Nothing is left running to stop.
  await extension.deactivate();
  assert.equal(log.clients[0].stopped, 0);
});

test('changing fsmc.path or the restart command restarts the server', async () => {
  const { extension, log } = loadWithFakes();
  await extension.activate(fakeContext());
  const [listener] = log.configListeners;
  await listener({ affectsConfiguration: (s) => s === 'editor.fontSize' });
  assert.equal(log.clients.length, 1, 'an unrelated setting restarted the server');
  await listener({ affectsConfiguration: (s) => s === 'fsmc.path' });
  assert.equal(log.clients.length, 2);
  assert.equal(log.clients[0].stopped, 1);
  assert.equal(log.clients[1].started, 1);
  await log.commands.get('fsmc.restartServer')();
  assert.equal(log.clients.length, 3);
  assert.equal(log.clients[1].stopped, 1);
  // One watcher, shared by every client.
  assert.equal(log.watchers.length, 1);
  const events = log.clients.map((cl) => cl.clientOptions.synchronize.fileEvents);
  assert.ok(events.every((w) => w === events[0]));
  await extension.deactivate();
  assert.equal(log.clients[2].stopped, 1);
});
