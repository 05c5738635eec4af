#!/usr/bin/env node
// Generates contributes.configuration in package.json from ../shared/settings.schema.json
// (the settings shared with the language server) and settings.client.schema.json (settings
// only this extension reads). One source of truth: edit the schemas, then run
// `npm run gen-settings`. `--check` exits 1 when package.json differs from the schemas.
'use strict';
const fs = require('fs');
const path = require('path');

const CLIENT_DIR = path.join(__dirname, '..');
const SHARED_SCHEMA = path.join(CLIENT_DIR, '..', 'shared', 'settings.schema.json');
const CLIENT_SCHEMA = path.join(CLIENT_DIR, 'settings.client.schema.json');
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

/** The whole contributes.configuration object from the two parsed schemas. */
function buildConfiguration(sharedSchema, clientSchema) {
  const properties = {};
  for (const schema of [sharedSchema, clientSchema]) {
    const resolved = resolveRefs(schema.properties || {}, schema);
    for (const [name, property] of Object.entries(resolved)) {
      if (name in properties) {
        throw new Error(`setting ${name} is defined twice: keep it in one schema`);
      }
      properties[name] = toContribution(name, property);
    }
  }
  return { title: 'codequorum', properties };
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function expectedConfiguration() {
  return buildConfiguration(readJson(SHARED_SCHEMA), readJson(CLIENT_SCHEMA));
}

function main(argv) {
  const pkg = readJson(PACKAGE_JSON);
  const expected = expectedConfiguration();
  const current = JSON.stringify((pkg.contributes || {}).configuration);
  if (current === JSON.stringify(expected)) {
    console.log('contributes.configuration is up to date with the settings schemas');
    return 0;
  }
  if (argv.includes('--check')) {
    console.error('contributes.configuration differs from the settings schemas: run `npm run gen-settings`');
    return 1;
  }
  pkg.contributes = { ...(pkg.contributes || {}), configuration: expected };
  fs.writeFileSync(PACKAGE_JSON, JSON.stringify(pkg, null, 2) + '\n');
  console.log(`wrote ${Object.keys(expected.properties).length} settings to package.json`);
  return 0;
}

module.exports = { buildConfiguration, toContribution, expectedConfiguration, SHARED_SCHEMA, CLIENT_SCHEMA, PACKAGE_JSON };

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
