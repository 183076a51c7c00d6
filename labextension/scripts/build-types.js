/**
 * Generate the panel's wire types from the server's pydantic models, so they are never
 * copied by hand:
 *   src/runs/events.generated.ts   the run events (geoagent_ext/agent/events.py)
 *   src/runs/rest.generated.ts     the REST bodies openapi.json documents (geoagent_ext/handlers)
 *
 *   jlpm build:types                    regenerate; fails without a Python that can import the models
 *   jlpm build:types --if-possible      what the builds run: without such a Python (pip's
 *                                       isolated build env), keep the committed files
 *   node scripts/build-types.js --out-dir DIR   write elsewhere (the drift tests in tests/frontend)
 *
 * Python: $GEOAGENT_PYTHON, else the project's .venv, else python3 or python on PATH.
 * Each header records its schema's sha256, so the tests can tell a stale file without node.
 * Shapes the events already define are imported by the REST file, not repeated.
 */
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { compile } = require('json-schema-to-typescript');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT_DIR = path.join(__dirname, '..', 'src', 'runs');

const EVENTS = {
  file: 'events.generated.ts',
  schema: 'geoagent_ext.agent.events_schema:schema_text',
  source: 'the pydantic event models (geoagent_ext/agent/events.py)',
  test: 'tests/frontend/test_event_types.py'
};
const REST = {
  file: 'rest.generated.ts',
  schema: 'geoagent_ext.handlers.openapi:rest_schema_text',
  source: "the REST API's pydantic bodies (geoagent_ext/handlers/openapi.py)",
  test: 'tests/frontend/test_rest_types.py'
};

/** The text `module:function` returns, from the first Python that can import it. */
function readSchemaText(call) {
  const [module, fn] = call.split(':');
  const code = `import sys, importlib; sys.stdout.write(importlib.import_module('${module}').${fn}())`;
  const pythons = [
    process.env.GEOAGENT_PYTHON,
    path.join(ROOT, '.venv', 'bin', 'python'),
    'python3',
    'python'
  ].filter(Boolean);
  const env = {
    ...process.env,
    PYTHONPATH: [ROOT, process.env.PYTHONPATH]
      .filter(Boolean)
      .join(path.delimiter)
  };
  const failures = [];
  for (const python of pythons) {
    const run = spawnSync(python, ['-c', code], {
      cwd: ROOT,
      env,
      encoding: 'utf8'
    });
    if (run.status === 0) {
      return run.stdout;
    }
    const why = run.error
      ? run.error.message
      : run.stderr.trim().split('\n').pop();
    failures.push(`${python}: ${why}`);
  }
  throw new Error(`no Python could run ${call}:\n  ${failures.join('\n  ')}`);
}

function banner(target, schemaText, imports) {
  const sha = crypto
    .createHash('sha256')
    .update(schemaText, 'utf8')
    .digest('hex');
  const importLine = imports.length
    ? `\nimport type { ${imports.join(', ')} } from './events.generated';\n`
    : '';
  return `/* eslint-disable */
/**
 * GENERATED from ${target.source}: do not edit.
 * Regenerate with \`cd labextension && jlpm build:types\` (the builds run it when Python
 * with pydantic is at hand); ${target.test} fails when this file drifts.
 *
 * schema-sha256: ${sha}
 */${importLine}`;
}

/**
 * `schema` with every $def the events schema also defines dropped and each $ref to it
 * typed by name instead; returns the names still referenced (to import).
 */
function importShared(schema, eventDefs) {
  const shared = new Set(
    Object.keys(schema.$defs).filter(name => name in eventDefs)
  );
  for (const name of shared) {
    delete schema.$defs[name];
  }
  const used = new Set();
  const retype = node => {
    if (Array.isArray(node)) {
      node.forEach(retype);
    } else if (node && typeof node === 'object') {
      const name =
        typeof node.$ref === 'string'
          ? node.$ref.replace('#/$defs/', '')
          : null;
      if (name && shared.has(name)) {
        delete node.$ref;
        node.tsType = name;
        used.add(name);
      }
      Object.values(node).forEach(retype);
    }
  };
  retype(schema);
  return [...used].sort();
}

async function generate(target, schemaText, rootName, imports, outDir) {
  const schema = JSON.parse(schemaText);
  const shared = imports ? importShared(schema, imports) : [];
  const ts = await compile(schema, rootName, {
    bannerComment: banner(target, schemaText, shared),
    // The bodies carry no other keys: no `[k: string]: unknown` on every interface.
    additionalProperties: false,
    style: { singleQuote: true }
  });
  const out = path.join(outDir, target.file);
  const old = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : null;
  if (old === ts) {
    console.log(`build:types: ${target.file} is up to date`);
    return;
  }
  fs.writeFileSync(out, ts);
  console.log(`build:types: wrote ${path.relative(process.cwd(), out)}`);
}

async function main(args) {
  const outAt = args.indexOf('--out-dir');
  const outDir = outAt >= 0 ? path.resolve(args[outAt + 1]) : OUT_DIR;
  let eventsText, restText;
  try {
    eventsText = readSchemaText(EVENTS.schema);
    restText = readSchemaText(REST.schema);
  } catch (err) {
    if (!args.includes('--if-possible')) {
      throw err;
    }
    console.log(
      `build:types: kept the committed generated files; ${err.message}`
    );
    return;
  }
  await generate(EVENTS, eventsText, 'RunEvent', null, outDir);
  await generate(
    REST,
    restText,
    'RestBody',
    JSON.parse(eventsText).$defs,
    outDir
  );
}

main(process.argv.slice(2)).catch(err => {
  console.error(`build:types: ${err.message}`);
  process.exit(1);
});
