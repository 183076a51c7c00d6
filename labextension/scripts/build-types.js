/**
 * Generate src/runs/events.generated.ts from the pydantic event models, so the
 * panel's event types are never copied by hand.
 *
 *   jlpm build:types                    regenerate; fails without a Python that has pydantic
 *   jlpm build:types --if-possible      what the builds run: without such a Python (pip's
 *                                       isolated build env), keep the committed file
 *   node scripts/build-types.js --out FILE   write elsewhere (tests/frontend/test_event_types.py)
 *
 * Python: $GEOAGENT_PYTHON, else the project's .venv, else python3 or python on PATH.
 * The header records the schema's sha256, so the test can tell a stale file without node.
 */
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { compile } = require('json-schema-to-typescript');

const ROOT = path.resolve(__dirname, '..', '..');
const TARGET = path.join(__dirname, '..', 'src', 'runs', 'events.generated.ts');
const SCHEMA_MODULE = 'geoagent_ext.agent.events_schema';

/** The schema text this tree's models give, from the first Python that can import them. */
function readSchemaText() {
  const pythons = [
    process.env.GEOAGENT_PYTHON,
    path.join(ROOT, '.venv', 'bin', 'python'),
    'python3',
    'python'
  ].filter(Boolean);
  const env = {
    ...process.env,
    PYTHONPATH: [ROOT, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter)
  };
  const failures = [];
  for (const python of pythons) {
    const run = spawnSync(python, ['-m', SCHEMA_MODULE], { cwd: ROOT, env, encoding: 'utf8' });
    if (run.status === 0) {
      return run.stdout;
    }
    const why = run.error ? run.error.message : run.stderr.trim().split('\n').pop();
    failures.push(`${python}: ${why}`);
  }
  throw new Error(`no Python could run ${SCHEMA_MODULE} (it needs pydantic):\n  ${failures.join('\n  ')}`);
}

function banner(schemaText) {
  const sha = crypto.createHash('sha256').update(schemaText, 'utf8').digest('hex');
  return `/* eslint-disable */
/**
 * GENERATED from the pydantic event models (geoagent_ext/agent/events.py): do not edit.
 * Regenerate with \`cd labextension && jlpm build:types\` (the builds run it when Python
 * with pydantic is at hand); tests/frontend/test_event_types.py fails when this file drifts.
 *
 * schema-sha256: ${sha}
 */`;
}

async function main(args) {
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? path.resolve(args[outAt + 1]) : TARGET;
  let schemaText;
  try {
    schemaText = readSchemaText();
  } catch (err) {
    if (!args.includes('--if-possible')) {
      throw err;
    }
    console.log(`build:types: kept the committed ${path.basename(out)}; ${err.message}`);
    return;
  }
  const ts = await compile(JSON.parse(schemaText), 'RunEvent', {
    bannerComment: banner(schemaText),
    // Events carry no other keys: no `[k: string]: unknown` on every interface.
    additionalProperties: false,
    style: { singleQuote: true }
  });
  const old = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : null;
  if (old === ts) {
    console.log(`build:types: ${path.basename(out)} is up to date`);
    return;
  }
  fs.writeFileSync(out, ts);
  console.log(`build:types: wrote ${path.relative(process.cwd(), out)}`);
}

main(process.argv.slice(2)).catch(err => {
  console.error(`build:types: ${err.message}`);
  process.exit(1);
});
