'use strict';
// The TextMate grammar, run by VS Code's own engine over every shipped spec (including the failing ones under
// specs/invalid) and over a fixture that holds every construct of the language: the scopes of the constructs
// that matter are asserted one by one, and the whole fixture's scopes are compared with a checked-in snapshot.
//
// `npm run test:update-snapshots` (FSMC_UPDATE_SNAPSHOTS=1) rewrites the snapshot; read its diff before keeping it.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, SCOPE, loadGrammar, tokenize } = require('./textmate');

const REPO = path.join(ROOT, '..', '..');
const SPECS = path.join(REPO, 'specs');
const FIXTURE = path.join(__dirname, 'fixtures', 'showcase.fsm');
const SNAPSHOT = `${FIXTURE}.snap`;

// Specs that are not valid syntax on purpose: the grammar must still tokenize them (an editor shows half-typed
// files all the time), but it cannot be expected to classify every character or close every construct.
// A name's code says so: E0001 is the syntax error.
function hasSyntaxError(file) {
  return /^E0001_/.test(path.basename(file));
}

function specFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      out.push(...specFiles(p));
    } else if (entry.name.endsWith('.fsm')) {
      out.push(p);
    }
  }
  return out.sort();
}

/** A scope that says what a piece of text is, not just where it is (`meta.*`) or which file (the root). */
function classifies(scope) {
  return scope !== SCOPE && !scope.startsWith('meta.');
}

function where(file, line) {
  return `${path.relative(REPO, file)}:${line}`;
}

/** Failures common to every file: a line the engine gave up on, or tokens that do not cover their line. */
function engineFailures(file, result) {
  const failures = [];
  for (const l of result.stoppedEarly) {
    failures.push(`${where(file, l)}: tokenizing stopped early (time limit)`);
  }
  for (const { line, message } of result.loops) {
    failures.push(`${where(file, line)}: ${message}`);
  }
  result.lines.forEach((line, i) => {
    let at = 0;
    for (const t of line.tokens) {
      if (t.start !== at) {
        failures.push(`${where(file, i + 1)}: tokens skip from column ${at} to ${t.start}`);
      }
      at = t.end;
    }
    if (at !== line.text.length) {
      failures.push(`${where(file, i + 1)}: tokens end at column ${at} of ${line.text.length}`);
    }
  });
  return failures;
}

/** Failures of a syntactically valid file: an unclassified or invalid token, or a construct left open. */
function strictFailures(file, result) {
  const failures = [];
  result.lines.forEach((line, i) => {
    for (const t of line.tokens) {
      if (t.text.trim() === '') {
        continue;
      }
      const invalid = t.scopes.find((s) => s.startsWith('invalid.'));
      if (invalid) {
        failures.push(`${where(file, i + 1)}: \`${t.text}\` is ${invalid}`);
      } else if (!t.scopes.some(classifies)) {
        failures.push(`${where(file, i + 1)}: \`${t.text}\` has no scope but ${t.scopes.join(' ')}`);
      }
    }
  });
  if (result.after.join(' ') !== SCOPE) {
    failures.push(`${path.relative(REPO, file)}: still inside ${result.after.join(' ')} at the end of the file`);
  }
  return failures;
}

let grammarPromise = null;
function grammar() {
  grammarPromise = grammarPromise || loadGrammar();
  return grammarPromise;
}

test('the shipped specs are there to test against', () => {
  const files = specFiles(SPECS);
  // One spec per system, and one failing spec per diagnostic code: far more than this.
  assert.ok(files.length >= 50, `only ${files.length} specs under ${SPECS}`);
  assert.ok(files.some(hasSyntaxError), 'no spec with a syntax error');
  assert.ok(files.some((f) => f.includes(`${path.sep}invalid${path.sep}`)), 'no spec from specs/invalid');
});

test('every shipped spec tokenizes, and every valid one is fully classified', async () => {
  const g = await grammar();
  const failures = [];
  for (const file of specFiles(SPECS)) {
    // Read as the editor would by default; specs/invalid/support/latin1.fsm is not UTF-8 on purpose.
    const result = tokenize(g, fs.readFileSync(file, 'utf8'));
    failures.push(...engineFailures(file, result));
    if (!hasSyntaxError(file)) {
      failures.push(...strictFailures(file, result));
    }
  }
  assert.deepEqual(failures, []);
});

test('the fixture is fully classified', async () => {
  const result = tokenize(await grammar(), fs.readFileSync(FIXTURE, 'utf8'));
  assert.deepEqual([...engineFailures(FIXTURE, result), ...strictFailures(FIXTURE, result)], []);
});

/**
 * The token of line `lineNo` (1-based) whose text is `text` (the `nth` such token, from 1), with its scopes.
 */
function tokenAt(result, lineNo, text, nth = 1) {
  const line = result.lines[lineNo - 1];
  assert.ok(line, `the fixture has no line ${lineNo}`);
  const matches = line.tokens.filter((t) => t.text === text);
  assert.ok(
    matches.length >= nth,
    `line ${lineNo} has no token \`${text}\` (#${nth}); tokens: ${line.tokens.map((t) => `\`${t.text}\``).join(' ')}`,
  );
  return matches[nth - 1];
}

function lineOf(result, needle) {
  const i = result.lines.findIndex((l) => l.text.includes(needle));
  assert.ok(i >= 0, `the fixture has no line with \`${needle}\``);
  return i + 1;
}

function assertScope(result, needle, text, scope, nth = 1) {
  const t = tokenAt(result, lineOf(result, needle), text, nth);
  assert.ok(
    t.scopes.includes(scope),
    `\`${text}\` in \`${needle}\` has scopes ${t.scopes.join(' ')}, not ${scope}`,
  );
}

test('known constructs get the right scopes', async () => {
  const r = tokenize(await grammar(), fs.readFileSync(FIXTURE, 'utf8'));
  const a = (needle, text, scope, nth) => assertScope(r, needle, text, scope, nth);

  // Keywords, in the places the grammar expects them.
  a('import "common', 'import', 'keyword.control.import.fsm');
  a('as Registration', 'as', 'keyword.control.as.fsm');
  a('as Registration', 'Registration', 'entity.name.type.machine.fsm');
  a('machine PriceAbciApp', 'machine', 'storage.type.machine.fsm');
  a('machine PriceAbciApp', 'PriceAbciApp', 'entity.name.type.machine.fsm');
  a('machine PriceAbciApp', 'abci', 'support.type.profile.fsm');
  a('event DONE, NO_MAJORITY', 'event', 'storage.type.event.fsm');
  a('cross_period key asset', 'cross_period', 'storage.modifier.cross-period.fsm');
  a('cross_period key asset', 'key', 'storage.type.key.fsm');
  a('start default state Registration', 'start', 'storage.modifier.fsm');
  a('start default state Registration', 'default', 'storage.modifier.fsm');
  a('start default state Registration', 'state', 'storage.type.state.fsm');
  a('final state FinishedPriceRound', 'final', 'storage.modifier.fsm');
  a('if ready unless', 'if', 'keyword.control.conditional.fsm');
  a('if ready unless', 'unless', 'keyword.control.conditional.fsm');
  a('if ready unless', 'do', 'keyword.other.do.fsm');
  a('persist raw', 'persist', 'keyword.other.persist.fsm');
  a('persist raw', 'raw', 'constant.language.persistence.fsm');
  a('app PriceOracleAbciApp', 'app', 'storage.type.app.fsm');
  a('chain AgentRegistration', 'chain', 'keyword.other.chain.fsm');
  a('by buyer', 'by', 'keyword.other.by.fsm');
  a('by buyer', 'buyer', 'variable.other.role.fsm');
  a('by initiator', 'initiator', 'keyword.other.turn.fsm');
  a('sender do store', 'sender', 'keyword.other.side.fsm');
  a('sender do store', 'receiver', 'keyword.other.side.fsm');
  a('sender do store', 'store', 'entity.name.function.action.fsm');
  a('sender do store', 'answer', 'entity.name.function.action.fsm');
  a('agents traders[]', 'traders', 'variable.other.agent.fsm');
  a('agents traders[]', '[]', 'punctuation.definition.group.fsm');
  a('scripted seller', 'scripted', 'keyword.other.property.fsm');
  a('scripted seller', 'seller', 'variable.other.agent.fsm');
  a('invariant "a submission', 'invariant', 'keyword.other.claim.fsm');
  a('invariant "a submission', 'missing', 'keyword.operator.word.fsm');
  a('invariant "agreed first', 'after', 'keyword.operator.word.fsm');
  a('invariant "agreed first', 'outcome', 'keyword.operator.word.fsm');
  a('invariant "agreed first', 'DONE', 'variable.other.fsm');
  a('eventually "a later', 'eventually', 'keyword.other.claim.fsm');
  a('eventually "a later', 'least', 'keyword.operator.word.fsm');
  a('eventually "a later', '2', 'constant.numeric.integer.fsm');

  // Comments: a doc comment is not an ordinary comment; `////` and `//!` are.
  const wholeLine = (needle, scope, not) => {
    for (const t of r.lines[lineOf(r, needle) - 1].tokens.filter((t) => t.text.trim() !== '')) {
      assert.ok(t.scopes.includes(scope), `\`${t.text}\` in \`${needle}\` is not ${scope}`);
      assert.ok(!t.scopes.includes(not), `\`${t.text}\` in \`${needle}\` is ${not}`);
    }
  };
  wholeLine('/// Agrees on a price.', 'comment.line.documentation.fsm', 'comment.line.double-slash.fsm');
  a('/// Agrees on a price.', '///', 'punctuation.definition.comment.documentation.fsm');
  wholeLine('/// Guarded transitions', 'comment.line.documentation.fsm', 'comment.line.double-slash.fsm');
  wholeLine('//// Four slashes', 'comment.line.double-slash.fsm', 'comment.line.documentation.fsm');
  wholeLine('//! Every construct', 'comment.line.double-slash.fsm', 'comment.line.documentation.fsm');
  a('fail = FAILED;', ' the keeper failed', 'comment.line.double-slash.fsm');
  // A nested block comment stays a comment past its inner `*/`, down to the outer one on the next line.
  const open = lineOf(r, '/* A block comment');
  for (const t of r.lines[open - 1].tokens) {
    assert.ok(t.scopes.includes('comment.block.fsm'), `\`${t.text}\` is not in the block comment`);
  }
  const inner = r.lines[open - 1].tokens.filter((t) => t.text === '/*');
  assert.equal(inner.length, 2, 'the nested comment opens a second level');
  assert.equal(inner[1].scopes.filter((s) => s === 'comment.block.fsm').length, 2);
  const spanning = tokenAt(r, open + 1, '   spanning lines, still a comment ');
  assert.ok(spanning.scopes.includes('comment.block.fsm'));
  const close = tokenAt(r, open + 1, '*/');
  assert.ok(close.scopes.includes('punctuation.definition.comment.end.fsm'));
  assert.deepEqual(r.lines[open + 1].tokens.map((t) => t.scopes.join(' ')), [SCOPE], 'the comment ended');

  // Attributes.
  a('#![allow', 'allow', 'keyword.other.lint-level.fsm');
  a('#![allow', 'unused_key', 'constant.other.lint.fsm');
  a('#![allow', 'W0606', 'constant.other.lint.fsm');
  assert.ok(tokenAt(r, lineOf(r, '#![allow'), '#').scopes.includes('meta.attribute.inner.fsm'));
  assert.ok(tokenAt(r, lineOf(r, '#[deny'), '#').scopes.includes('meta.attribute.outer.fsm'));

  // Names: states, events, keys, in declarations and in transitions.
  a('start default state Registration', 'RegistrationRound', 'entity.name.type.state.fsm');
  a('(RegistrationRound, DONE) -> CollectPriceRound;', 'RegistrationRound', 'entity.name.type.state.fsm');
  a('(RegistrationRound, DONE) -> CollectPriceRound;', 'DONE', 'variable.other.enummember.event.fsm');
  a('(RegistrationRound, DONE) -> CollectPriceRound;', '->', 'keyword.operator.arrow.fsm');
  a('(RegistrationRound, DONE) -> CollectPriceRound;', 'CollectPriceRound', 'entity.name.type.state.fsm');
  a('if ready unless', 'ready', 'entity.name.function.guard.fsm');
  a('if ready unless', 'notify', 'entity.name.function.action.fsm');
  a('event DONE, NO_MAJORITY', 'NO_MAJORITY', 'variable.other.enummember.event.fsm');
  a('cross_period key asset', 'asset', 'variable.other.key.fsm');
  a('reads asset; writes prices;', 'prices', 'variable.other.key.fsm');
  a('fail = FAILED;', 'FAILED', 'variable.other.enummember.event.fsm');
  a('Bid -> Bid, Clear;', 'Clear', 'entity.name.type.state.fsm');
  a('rewarded none', 'none', 'constant.language.none.fsm');
  a('acting traders, seller', 'seller', 'variable.other.agent.fsm');
  a('roles buyer, seller', 'seller', 'variable.other.role.fsm');
  a('chain AgentRegistration', 'PriceAbciApp', 'entity.name.type.machine.fsm');
  a('AgentRegistrationAbciApp::Finished', 'AgentRegistrationAbciApp', 'entity.name.type.machine.fsm');
  a('AgentRegistrationAbciApp::Finished', 'FinishedRegistrationRound', 'entity.name.type.state.fsm');
  a('AgentRegistrationAbciApp::Finished', 'RegistrationRound', 'entity.name.type.state.fsm');

  // Round kinds and properties.
  a('start default state Registration', 'collect_same_until_all', 'support.type.kind.round.fsm');
  a('state Think: invoker', 'invoker', 'support.type.kind.genie.fsm');
  a('payload "String";', 'payload', 'keyword.other.property.fsm');
  a('registration;', 'registration', 'keyword.other.property.fsm');
  a('reset;', 'reset', 'keyword.other.property.fsm');
  a('fail = FAILED;', 'fail', 'keyword.other.property.outcome.fsm');
  a('owner "team', 'owner', 'variable.other.property.fsm');

  // Durations (the unit too), strings and their escapes.
  a('timeout 30s', 'timeout', 'keyword.other.timeout.fsm');
  a('timeout 30s', '30', 'constant.numeric.duration.fsm');
  a('timeout 30s', 's', 'keyword.other.unit.fsm');
  a('timeout 30s', '1.5', 'constant.numeric.duration.fsm');
  a('timeout 500ms', 'ms', 'keyword.other.unit.fsm');
  a('payload "String";', 'String', 'string.quoted.double.fsm');
  a('owner "team', '\\"', 'constant.character.escape.fsm');
  a('owner "team', '\\n', 'constant.character.escape.fsm');
  a('import "common', 'common/registration.fsm', 'string.quoted.double.fsm');

  // Rust types, including the `;` of an array type, which must not end the declaration.
  a('key prices', 'std', 'entity.name.namespace.fsm');
  a('key prices', 'BTreeMap', 'entity.name.type.fsm');
  a('key prices', 'u64', 'support.type.primitive.fsm');
  a('key seed', ';', 'punctuation.separator.array.fsm');
  a('key seed', '32', 'constant.numeric.integer.fsm');
  a('key seed', ';', 'punctuation.terminator.statement.fsm', 2);
  a('event Propose', 'price', 'variable.other.field.fsm');
  a('event Propose', 'Propose', 'variable.other.enummember.event.fsm');
});

test('half-typed statements do not swallow the rest of the machine', async () => {
  const g = await grammar();
  // A transition missing its `;`, then a state declaration: the state is still a state.
  const r = tokenize(
    g,
    ['machine M {', '    (A, GO) -> B', '    state C;', '    event', '}', 'machine N { state D; }'].join('\n'),
  );
  assert.ok(tokenAt(r, 3, 'state').scopes.includes('storage.type.state.fsm'));
  assert.ok(tokenAt(r, 3, 'C').scopes.includes('entity.name.type.state.fsm'));
  assert.ok(tokenAt(r, 5, '}').scopes.includes('punctuation.section.block.end.fsm'));
  assert.ok(tokenAt(r, 6, 'D').scopes.includes('entity.name.type.state.fsm'));
  assert.deepEqual(r.after, [SCOPE]);
  // An unterminated string ends with its line.
  const s = tokenize(g, ['machine M {', '    label "open', '    state C;', '}'].join('\n'));
  assert.ok(!tokenAt(s, 3, 'state').scopes.includes('string.quoted.double.fsm'));
  assert.ok(tokenAt(s, 3, 'state').scopes.includes('storage.type.state.fsm'));
  // Keywords are only keywords where the grammar expects them.
  const k = tokenize(g, 'machine M { state stateful; (stateful, event) -> state_b; }');
  assert.ok(tokenAt(k, 1, 'stateful').scopes.includes('entity.name.type.state.fsm'));
  assert.ok(tokenAt(k, 1, 'event').scopes.includes('variable.other.enummember.event.fsm'));
  assert.ok(tokenAt(k, 1, 'state_b').scopes.includes('entity.name.type.state.fsm'));
});

/** The snapshot's text: each line, then each of its tokens that is not blank with its scopes (root omitted). */
function snapshotText(result) {
  const out = [];
  result.lines.forEach((line, i) => {
    out.push(`${String(i + 1).padStart(3)} | ${line.text}`.trimEnd());
    for (const t of line.tokens) {
      if (t.text.trim() === '') {
        continue;
      }
      const scopes = t.scopes.filter((s) => s !== SCOPE);
      out.push(`    | ${JSON.stringify(t.text)} ${scopes.join(' ')}`.trimEnd());
    }
  });
  return out.join('\n') + '\n';
}

test('the fixture matches its scope snapshot', async () => {
  const actual = snapshotText(tokenize(await grammar(), fs.readFileSync(FIXTURE, 'utf8')));
  if (process.env.FSMC_UPDATE_SNAPSHOTS === '1') {
    fs.writeFileSync(SNAPSHOT, actual);
    return;
  }
  assert.ok(fs.existsSync(SNAPSHOT), `no snapshot ${SNAPSHOT}: run \`npm run test:update-snapshots\``);
  const expected = fs.readFileSync(SNAPSHOT, 'utf8');
  if (actual !== expected) {
    // Left beside the snapshot for review (and ignored by git), as insta does.
    fs.writeFileSync(`${SNAPSHOT}.new`, actual);
  }
  assert.equal(actual, expected, `the scopes changed; the new ones are in ${SNAPSHOT}.new`);
});
