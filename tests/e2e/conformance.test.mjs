// The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) against one
// real `chat2sbx serve`, for both protocol eras: --spec-version 2025-11-25 (initialize + sessions)
// and 2026-07-28 (stateless, server/discover). Judged per CHECK from each scenario's checks.json:
// every check must be SUCCESS or INFO, except the few in NOT_APPLICABLE below, which need the
// suite's own fixture tools and are accepted only with the status and message that say so.
// Scenarios made only of fixture checks (FIXTURE_ONLY, each with why) run with the rest and are
// judged only by their wire-schema-valid check (every message the server sent them is valid per
// the spec's schema); every scenario the suite runs for a version must be in one of the two lists,
// so nothing is left out silently.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail, startServer } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

// Scenarios run and judged check by check, per spec version.
const RUN = {
  '2025-11-25': ['server-initialize', 'server-session-lifecycle', 'ping', 'logging-set-level', 'tools-list',
    'resources-list', 'prompts-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'caching', 'http-header-validation', 'sep-2164-resource-not-found', 'tools-list',
    'resources-list', 'prompts-list', 'server-sse-multiple-streams', 'dns-rebinding-protection',
    'input-required-result-unsupported-methods'],
};
// What issue 35 asks for at least (a subset of RUN, checked below).
const REQUIRED = {
  '2025-11-25': ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'caching', 'http-header-validation', 'sep-2164-resource-not-found', 'tools-list',
    'resources-list', 'dns-rebinding-protection'],
};

// Scenarios whose every protocol check exercises a fixture of the suite's reference server.
const FIXTURE_ONLY = {
  'completion-complete': 'completes the fixture prompt test_prompt_with_arguments; chat2sbx serves no prompts and no completions',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'calls the fixture tool test_sampling',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums',
  'json-schema-2020-12': 'expects the fixture tool json_schema_2020_12_tool',
  'server-sse-polling': 'calls the fixture tool test_reconnection, which closes its stream mid-call',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'subscribes to the fixture resource test://watched-resource',
  'resources-unsubscribe': 'unsubscribes from the fixture resource test://watched-resource',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
  'http-custom-header-server-validation': 'needs a tool whose inputSchema has an x-mcp-header parameter; no chat2sbx tool mirrors an argument into a header',
  'input-required-result-basic-elicitation': 'calls the fixture tool test_input_required_result_elicitation (chat2sbx never asks the client for input)',
  'input-required-result-basic-sampling': 'calls the fixture tool test_input_required_result_sampling',
  'input-required-result-basic-list-roots': 'calls the fixture tool test_input_required_result_list_roots',
  'input-required-result-request-state': 'calls a fixture input_required tool and replays its requestState',
  'input-required-result-multiple-input-requests': 'calls a fixture tool that asks for several inputs at once',
  'input-required-result-multi-round': 'calls a fixture tool that asks for input over several rounds',
  'input-required-result-missing-input-response': 'calls the fixture tool test_input_required_result_elicitation with wrong inputResponses',
  'input-required-result-non-tool-request': 'gets a fixture prompt that answers input_required',
  'input-required-result-result-type': 'calls a fixture input_required tool to read its resultType',
  'input-required-result-tampered-state': 'needs the requestState of a fixture input_required tool',
  'input-required-result-capability-check': 'calls a fixture tool that needs the elicitation capability',
  'input-required-result-ignore-extra-params': 'calls the fixture tool test_input_required_result_elicitation with extra inputResponses',
  'input-required-result-validate-input': 'calls the fixture tool test_input_required_result_elicitation with invalid inputResponses',
};

// Checks inside the run scenarios that cannot apply to chat2sbx. Each is accepted only with the
// listed status AND a message/details matching `match` (the suite's own words for why); an entry
// that no check needed fails the test, so the table cannot go stale.
const NOT_APPLICABLE = [
  { scenario: 'server-stateless', check: 'sep-2575-server-rejects-undeclared-capability', status: ['FAILURE'],
    match: /Not testable: server does not list the diagnostic tool 'test_missing_capability'/,
    why: 'needs the fixture tool test_missing_capability (a tool that requires the sampling capability); no chat2sbx tool needs a client capability' },
  { scenario: 'server-stateless', check: 'sep-2575-missing-capability-http-400', status: ['FAILURE'],
    match: /Not testable: server does not list the diagnostic tool 'test_missing_capability'/,
    why: 'the HTTP status of the same fixture tool\'s -32021 rejection' },
  { scenario: 'server-stateless', check: 'sep-2575-http-server-no-independent-requests-on-stream', status: ['FAILURE'],
    match: /Not testable: server does not list the diagnostic tool 'test_streaming_elicitation'/,
    why: 'needs the fixture tool test_streaming_elicitation; chat2sbx sends no server-to-client requests' },
  { scenario: 'server-stateless', check: 'sep-2575-server-no-log-without-loglevel', status: ['FAILURE'],
    match: /Not testable: server does not list the diagnostic tool 'test_logging_tool'/,
    why: 'needs the fixture tool test_logging_tool, which logs on demand' },
  { scenario: 'server-stateless', check: 'sep-2575-server-sends-subscription-ack', status: ['SKIPPED'],
    match: /advertises no subscription-delivered capability; subscriptions\/listen is not applicable/,
    why: 'chat2sbx declares no listChanged/subscribe capability, so subscriptions/listen is -32601 (the suite: not applicable)' },
  { scenario: 'server-stateless', check: 'sep-2575-server-tags-subscription-id', status: ['SKIPPED'],
    match: /advertises no subscription-delivered capability; subscriptions\/listen is not applicable/,
    why: 'same: no subscription stream to tag' },
  { scenario: 'server-stateless', check: 'sep-2575-server-honors-notification-filter', status: ['SKIPPED'],
    match: /advertises no subscription-delivered capability; subscriptions\/listen is not applicable/,
    why: 'same: no subscription stream to filter' },
  { scenario: 'server-stateless', check: 'sep-2575-server-sends-prompts-list-changed-on-subscription', status: ['SKIPPED'],
    match: /did not declare prompts\.listChanged/, why: 'chat2sbx\'s prompt list never changes (no prompts.listChanged)' },
  { scenario: 'server-stateless', check: 'sep-2575-server-sends-tools-list-changed-on-subscription', status: ['SKIPPED'],
    match: /did not declare tools\.listChanged/, why: 'chat2sbx\'s tool list is fixed while it runs (no tools.listChanged)' },
];

function runNode(args, timeoutMs) {
  // Asynchronous: the server's output pipes (harness.mjs) must keep draining while the suite runs.
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, out }); });
  });
}

// One suite run per version (the CLI takes seconds to load, so not one run per scenario): every
// scenario of the version runs, each writes <out>/server-<scenario>-<timestamp>/checks.json.
function readRuns(dir) {
  const runs = new Map();
  for (const d of existsSync(dir) ? readdirSync(dir) : []) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(d);
    const file = path.join(dir, d, 'checks.json');
    if (m && existsSync(file)) runs.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return runs;
}

const problems = [];
for (const [version, run] of Object.entries(RUN)) {
  for (const name of run) if (name in FIXTURE_ONLY) problems.push(`${name} is both run and fixture-only`);
  for (const name of REQUIRED[version]) if (!run.includes(name)) problems.push(`${version}: required scenario ${name} is not run`);
}
if (problems.length) fail(problems.join('\n'));

const server = await startServer();
const out = mkdtempSync(path.join(os.tmpdir(), 'chat2sbx-conformance-'));
const used = new Set();
const everRan = new Set();
const t0 = Date.now();
try {
  for (const [version, run] of Object.entries(RUN)) {
    const dir = path.join(out, version);
    const r = await runNode([cli, 'server', '--url', server.url, '--suite', 'all', '--spec-version', version,
      '--timeout', '30000', '-o', dir], 150000);
    const ran = [...r.out.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]);
    ran.forEach((n) => everRan.add(n));
    const runs = readRuns(dir);
    console.log(`conformance ${version}: the suite ran ${ran.length} scenarios (exit ${r.code ?? r.signal})`);
    for (const name of ran)
      if (!run.includes(name) && !(name in FIXTURE_ONLY))
        problems.push(`${version}: the suite has scenario ${name}, which is neither judged here nor listed as fixture-only`);
    let passed = 0;
    let notApplicable = 0;
    for (const scenario of run) {
      const checks = runs.get(scenario);
      if (!ran.includes(scenario) || !Array.isArray(checks) || checks.length === 0) {
        problems.push(`${version} ${scenario}: did not run or wrote no checks`);
        continue;
      }
      for (const c of checks) {
        if (c.status === 'SUCCESS' || c.status === 'INFO') { passed++; continue; }
        const text = `${c.errorMessage ?? ''} ${JSON.stringify(c.details ?? {})}`;
        const entry = NOT_APPLICABLE.findIndex((e) => e.scenario === scenario && e.check === c.id
          && e.status.includes(c.status) && e.match.test(text));
        if (entry >= 0) {
          used.add(entry);
          notApplicable++;
          console.log(`n/a: ${version} ${scenario} ${c.id} ${c.status}: ${NOT_APPLICABLE[entry].why}`);
          continue;
        }
        problems.push(`${version} ${scenario} ${c.id} ${c.status}: ${c.errorMessage ?? c.description ?? ''}`);
      }
      console.log(`${version} ${scenario}: ${checks.map((c) => `${c.id}=${c.status}`).join(' ')}`);
    }
    // Fixture-only scenarios still show whether every message the server sent them was valid.
    let wireChecked = 0;
    for (const scenario of ran.filter((n) => n in FIXTURE_ONLY)) {
      for (const c of (runs.get(scenario) ?? []).filter((x) => x.id === 'wire-schema-valid')) {
        wireChecked++;
        if (c.status !== 'SUCCESS') problems.push(`${version} ${scenario} (fixture-only) ${c.id} ${c.status}: ${c.errorMessage ?? ''}`);
      }
    }
    if (problems.length) console.error(r.out.slice(Math.max(0, r.out.indexOf('=== SUMMARY ==='))).slice(0, 4000));
    console.log(`conformance ${version}: ${run.length} scenarios judged, ${passed} checks passed, ${notApplicable} not applicable; `
      + `${ran.filter((n) => n in FIXTURE_ONLY).length} fixture-only scenarios judged only by their ${wireChecked} wire-schema-valid checks`);
  }
  for (const name of Object.keys(FIXTURE_ONLY))
    if (!everRan.has(name)) problems.push(`FIXTURE_ONLY lists ${name}, which the suite did not run: remove it`);
  NOT_APPLICABLE.forEach((e, i) => {
    if (!used.has(i)) problems.push(`NOT_APPLICABLE entry ${e.scenario} ${e.check} was never needed: remove it`);
  });
  console.log(`conformance: ${Math.round((Date.now() - t0) / 1000)} s`);
  if (problems.length) console.error(server.output().slice(-6000));
} finally {
  await server.stop();
  rmSync(out, { recursive: true, force: true });
}
if (problems.length) fail(`${problems.length} conformance check(s) failed:\n  ${problems.join('\n  ')}`);
console.log('PASS: conformance');
