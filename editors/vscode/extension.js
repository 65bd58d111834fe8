'use strict';
// The VS Code client of fsmc's language server: it runs `fsmc lsp` on stdio for `.fsm` documents. Colouring
// comes from the TextMate grammar (syntaxes/fsm.tmLanguage.json), refined by the server's semantic tokens;
// everything else (diagnostics, hover, navigation, rename, completion, outline, formatting, quick fixes) is the
// server's. Plain JavaScript, so that the extension needs no build step.

const path = require('node:path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** The running client, if any. */
let client;
/** Watches the specs and Open Autonomy YAML on disk; made once, shared by every client a restart makes. */
let watcher;

/**
 * The command that runs the server, from the `fsmc.path` setting: a bare name is looked up on `PATH` (by the
 * operating system), an absolute path is taken as it is, and a relative path is relative to the first
 * workspace folder, so that `target/debug/fsmc` works in a checkout of fsmc itself.
 */
function serverCommand(setting, workspaceFolders) {
  const value = typeof setting === 'string' && setting.trim() !== '' ? setting.trim() : 'fsmc';
  if (path.isAbsolute(value) || !/[\\/]/.test(value)) {
    return value;
  }
  const folder = workspaceFolders && workspaceFolders[0];
  return folder ? path.join(folder.uri.fsPath, value) : value;
}

function createClient() {
  const config = vscode.workspace.getConfiguration('fsmc');
  const command = serverCommand(config.get('path'), vscode.workspace.workspaceFolders);
  const executable = { command, args: ['lsp'] };
  const serverOptions = { run: executable, debug: executable };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'fsm' }],
    // The server resolves relative search paths against the first workspace folder, as `fsmc check -I` does
    // against the current directory.
    initializationOptions: { searchPaths: config.get('searchPaths') || [] },
    // Imports are read from disk: tell the server when an imported spec (or Open Autonomy YAML) changes.
    synchronize: { fileEvents: watcher },
  };
  return { client: new LanguageClient('fsmc', 'fsmc', serverOptions, clientOptions), command };
}

async function start() {
  const created = createClient();
  client = created.client;
  try {
    await client.start();
  } catch (e) {
    client = undefined;
    const reason = e && e.message ? e.message : String(e);
    vscode.window.showErrorMessage(
      `fsmc: could not start the language server \`${created.command} lsp\` (${reason}). ` +
        'Install fsmc or point the "fsmc.path" setting at its binary.',
    );
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch {
      // A server that already exited has nothing left to stop.
    }
  }
}

async function restart() {
  await stop();
  await start();
}

async function activate(context) {
  watcher = vscode.workspace.createFileSystemWatcher('**/*.{fsm,yaml,yml}');
  context.subscriptions.push(
    watcher,
    vscode.commands.registerCommand('fsmc.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('fsmc.path') || e.affectsConfiguration('fsmc.searchPaths')) {
        return restart();
      }
      return undefined;
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate, serverCommand };
