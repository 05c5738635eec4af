#!/usr/bin/env node
// Generates contributes.configuration and capabilities.untrustedWorkspaces (the settings
// marked "x-codequorum-restricted": true) in package.json, and src/clientOnlySettings.ts (the
// settings marked "x-codequorum-scope": "client", which the extension keeps to itself), from
// ../shared/settings.schema.json, the one schema of every setting (written from the server's
// declared settings: `python -m codequorum.options.settings_schema`). Regenerate the schema,
// then run `npm run gen-settings`. `--check` exits 1 when a generated file differs from the
// schema.
'use strict';
const fs = require('fs');
const path = require('path');

const CLIENT_DIR = path.join(__dirname, '..');
const SHARED_SCHEMA = path.join(CLIENT_DIR, '..', 'shared', 'settings.schema.json');
const CLIENT_ONLY_TS = path.join(CLIENT_DIR, 'src', 'clientOnlySettings.ts');
/** The schema marker of a setting only the editor client reads. */
const SCOPE_MARKER = 'x-codequorum-scope';
/** The schema marker of a setting that chooses what runs or where a key goes. */
const RESTRICTED_MARKER = 'x-codequorum-restricted';
/** What VS Code shows about the extension in an untrusted workspace. */
const UNTRUSTED_DESCRIPTION =
  'In an untrusted workspace codequorum shows the stability of stored versions but runs nothing: no sandboxed runs and no regeneration against an endpoint. Settings that choose what runs, which versions run or where an API key goes are taken from your user settings only.';
const PACKAGE_JSON = path.join(CLIENT_DIR, 'package.json');

/** Keys of a JSON-schema property that VS Code's configuration contribution understands. */
const KEPT_KEYS = [
  'type',
  'default',
  'description',
  'markdownDescription',
  'enum',
  'enumDescriptions',
  'markdownEnumDescriptions',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'patternErrorMessage',
  'format',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'additionalProperties',
  'required',
  'scope',
  'order',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'editPresentation',
  'tags',
];

function resolveRefs(value, root) {
  if (Array.isArray(value)) {
    return value.map((v) => resolveRefs(v, root));
  }
  if (value && typeof value === 'object') {
    if (typeof value.$ref === 'string') {
      if (!value.$ref.startsWith('#/')) {
        throw new Error(`only local $ref is supported: ${value.$ref}`);
      }
      let target = root;
      for (const part of value.$ref.slice(2).split('/')) {
        target = target && target[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      if (target === undefined) {
        throw new Error(`unresolved $ref ${value.$ref}`);
      }
      const { $ref: _ref, ...rest } = value;
      return { ...resolveRefs(target, root), ...resolveRefs(rest, root) };
    }
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = resolveRefs(v, root);
    }
    return out;
  }
  return value;
}

/** One schema property -> one VS Code configuration property. */
function toContribution(name, property) {
  if (!name.startsWith('codequorum.')) {
    throw new Error(`setting ${name} lacks the codequorum. prefix`);
  }
  if (typeof property.description !== 'string' && typeof property.markdownDescription !== 'string') {
    throw new Error(`setting ${name} has no description`);
  }
  if (!('default' in property)) {
    throw new Error(`setting ${name} has no default`);
  }
  const out = {};
  for (const key of KEPT_KEYS) {
    if (key in property) {
      out[key] = property[key];
    }
  }
  return out;
}

/** The whole contributes.configuration object from the parsed schema. */
function buildConfiguration(schema) {
  const properties = {};
  const resolved = resolveRefs(schema.properties || {}, schema);
  for (const [name, property] of Object.entries(resolved)) {
    properties[name] = toContribution(name, property);
  }
  return { title: 'codequorum', properties };
}

/** Names (without the codequorum. prefix) of the settings marked for the client only. */
function clientOnlySettings(schema) {
  return Object.entries(schema.properties || {})
    .filter(([, property]) => property && property[SCOPE_MARKER] === 'client')
    .map(([name]) => name.replace(/^codequorum\./, ''));
}

/** Full names of the settings marked restricted (workspace values need the user's trust). */
function restrictedSettings(schema) {
  return Object.entries(schema.properties || {})
    .filter(([, property]) => property && property[RESTRICTED_MARKER] === true)
    .map(([name]) => name);
}

/** capabilities.untrustedWorkspaces of package.json from the parsed schema. */
function buildUntrustedWorkspaces(schema) {
  return { supported: 'limited', description: UNTRUSTED_DESCRIPTION, restrictedConfigurations: restrictedSettings(schema) };
}

/** The text of src/clientOnlySettings.ts. */
function clientOnlySource(schema) {
  const names = clientOnlySettings(schema).map((n) => `  '${n}',\n`).join('');
  return (
    '// Generated by scripts/gen-settings.js from shared/settings.schema.json: do not edit.\n\n' +
    `/** Settings marked "${SCOPE_MARKER}": "client", without the \`codequorum.\` prefix. */\n` +
    `export const CLIENT_ONLY_SETTINGS = [\n${names}] as const;\n`
  );
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function expectedConfiguration() {
  return buildConfiguration(readJson(SHARED_SCHEMA));
}

function expectedUntrustedWorkspaces() {
  return buildUntrustedWorkspaces(readJson(SHARED_SCHEMA));
}

function expectedClientOnlySource() {
  return clientOnlySource(readJson(SHARED_SCHEMA));
}

function main(argv) {
  const pkg = readJson(PACKAGE_JSON);
  const expected = expectedConfiguration();
  const untrusted = expectedUntrustedWorkspaces();
  const source = expectedClientOnlySource();
  const current = JSON.stringify((pkg.contributes || {}).configuration);
  const currentUntrusted = JSON.stringify((pkg.capabilities || {}).untrustedWorkspaces);
  const currentSource = fs.existsSync(CLIENT_ONLY_TS) ? fs.readFileSync(CLIENT_ONLY_TS, 'utf8') : '';
  const pkgUpToDate = current === JSON.stringify(expected) && currentUntrusted === JSON.stringify(untrusted);
  if (pkgUpToDate && currentSource === source) {
    console.log('package.json and src/clientOnlySettings.ts are up to date with the settings schema');
    return 0;
  }
  if (argv.includes('--check')) {
    console.error('package.json or src/clientOnlySettings.ts differs from the settings schema: run `npm run gen-settings`');
    return 1;
  }
  if (!pkgUpToDate) {
    pkg.capabilities = { ...(pkg.capabilities || {}), untrustedWorkspaces: untrusted };
    pkg.contributes = { ...(pkg.contributes || {}), configuration: expected };
    fs.writeFileSync(PACKAGE_JSON, JSON.stringify(pkg, null, 2) + '\n');
    console.log(
      `wrote ${Object.keys(expected.properties).length} settings (${untrusted.restrictedConfigurations.length} restricted) to package.json`,
    );
  }
  if (currentSource !== source) {
    fs.writeFileSync(CLIENT_ONLY_TS, source);
    console.log(`wrote ${clientOnlySettings(readJson(SHARED_SCHEMA)).length} client-only settings to src/clientOnlySettings.ts`);
  }
  return 0;
}

module.exports = {
  buildConfiguration,
  toContribution,
  clientOnlySettings,
  clientOnlySource,
  restrictedSettings,
  buildUntrustedWorkspaces,
  expectedUntrustedWorkspaces,
  expectedConfiguration,
  expectedClientOnlySource,
  SHARED_SCHEMA,
  CLIENT_ONLY_TS,
  PACKAGE_JSON,
  SCOPE_MARKER,
  RESTRICTED_MARKER,
};

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
