/**
 * What the server is told of the `codequorum` settings: everything but the settings only the
 * extension reads (the server would report those as unknown).
 */
import { CLIENT_ONLY_SETTINGS } from './clientOnlySettings';
import { isObject, type Json } from './json';

/** Settings marked `"x-codequorum-scope": "client"` in shared/settings.schema.json (generated). */
export { CLIENT_ONLY_SETTINGS };

/** A copy of the nested settings object without the client-only keys (and groups left empty by that). */
export function serverSettings(section: unknown): unknown {
  if (!isObject(section)) {
    return section;
  }
  const copy = JSON.parse(JSON.stringify(section)) as Json;
  for (const dotted of CLIENT_ONLY_SETTINGS) {
    delete copy[`codequorum.${dotted}`];
    delete copy[dotted];
    const parts = dotted.split('.');
    const parents: Json[] = [copy];
    let node: unknown = copy;
    for (const part of parts.slice(0, -1)) {
      node = isObject(node) ? node[part] : undefined;
      if (!isObject(node)) {
        break;
      }
      parents.push(node);
    }
    if (parents.length === parts.length) {
      delete parents[parents.length - 1][parts[parts.length - 1]];
      // drop groups that became empty, innermost first
      for (let i = parts.length - 2; i >= 0; i--) {
        const group = parents[i][parts[i]];
        if (isObject(group) && Object.keys(group).length === 0) {
          delete parents[i][parts[i]];
        }
      }
    }
  }
  return copy;
}

/**
 * The settings with the workspace's trust as the extension knows it (`trusted`), replacing any
 * value the settings files carry: the server runs and sends nothing when it is false.
 */
export function withTrust(settings: unknown, trusted: boolean): Json {
  const copy: Json = isObject(settings) ? { ...settings } : {};
  delete copy['codequorum.trusted'];
  copy.trusted = trusted;
  return copy;
}
