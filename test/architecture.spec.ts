/**
 * The import direction of `lib/`, as a rule (ARCHITECTURE.md, "Layers"). It reads every import of
 * every source file with the TypeScript compiler and fails, naming the file and the import, on:
 * - an import of a folder at the same or a higher layer (leaves import nothing from lib);
 * - a flow importing another flow;
 * - a platform package (`express`, `fastify`, `@nestjs/platform-*`) imported outside http/ and guard/;
 * - a cycle of value imports between files;
 * - a file in a folder the table does not place.
 * The checker itself is tested on made-up sources first, so this spec cannot pass by checking nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/** Folders of lib/ by layer: a file may import only from lower layers (and its own folder). */
export const LAYERS: Record<string, number> = {
  types: 0,
  errors: 0,
  util: 1,
  'rate-limit': 2,
  bus: 2,
  providers: 3,
  adapters: 4,
  config: 5,
  core: 6,
  session: 7,
  pages: 8,
  'sign-in': 9,
  methods: 10,
  account: 11,
  'native-apps': 11,
  tokens: 10,
  router: 12,
  http: 13,
  guard: 14,
  '.': 15,
};
/** Layers that import nothing from lib/. */
const LEAVES = new Set(['types', 'errors']);
/** Packages only the platform edge may import. */
const PLATFORM = /^(express|fastify|@fastify\/|@nestjs\/platform-)/;
const PLATFORM_FOLDERS = new Set(['http', 'guard']);

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** The imports and re-exports of a source text (static and dynamic). */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const refs: ImportRef[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, line: line(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, line: line(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      refs.push({ specifier: node.arguments[0].text, typeOnly: false, line: line(node) });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      refs.push({ specifier: node.argument.literal.text, typeOnly: true, line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

/**
 * Where a file sits: its folder and its layer. A sign-in method's folder (`methods/<name>/`) spans
 * layers, each file at the layer of the role its name gives it (ARCHITECTURE.md, "Adding a sign-in
 * method"): `*.types.ts`, `*.provider.ts`, `*.normalize.ts` and `*.message.ts` are its part of the
 * provider contract (providers/, layer 3), `*.validate.ts` its option checks (config/, 5), `*.form.ts`
 * its sign-in page fragment (pages/, 8), everything else its flow (methods, 10).
 */
export interface Place {
  /** `session`, `.` (the root), or `methods/<name>`. */
  folder: string;
  /** The core folder whose layer and rules the file follows (`methods` for a method's flow). */
  role: string;
  layer: number;
  /** `methods/<name>/index.ts`: what a method offers the account pages, the guard and the edge. */
  barrel?: boolean;
}

const METHOD_ROLES: Array<[RegExp, string]> = [
  [/\.(types|provider|normalize|message)\.ts$/, 'providers'],
  [/\.validate\.ts$/, 'config'],
  [/\.form\.ts$/, 'pages'],
];

/** The place of a path relative to lib/ (`methods/oauth/oauth.validate.ts` → methods/oauth as config/), or undefined. */
export function placeOf(rel: string): Place | undefined {
  const parts = rel.split('/');
  if (parts.length === 1) return { folder: '.', role: '.', layer: LAYERS['.']! };
  if (parts[0] === 'methods') {
    if (parts.length < 3) return undefined;
    const role = METHOD_ROLES.find(([re]) => re.test(rel))?.[1] ?? 'methods';
    const barrel = parts.length === 3 && parts[2] === 'index.ts';
    return { folder: `methods/${parts[1]}`, role, layer: LAYERS[role]!, ...(barrel ? { barrel } : {}) };
  }
  return parts[0] in LAYERS ? { folder: parts[0], role: parts[0], layer: LAYERS[parts[0]]! } : undefined;
}

const label = (p: Place) =>
  p.folder === '.' ? 'the root' : p.folder === p.role ? `${p.folder}/` : `${p.folder}/ (as ${p.role}/)`;

/** Why an import from `from` to `to` breaks the rules, or undefined when it is allowed. */
function violation(from: Place, to: Place, typeOnly: boolean): string | undefined {
  if (to.folder === from.folder) {
    // Inside a method folder the roles keep their order: a validator never reaches its flow.
    return to.layer > from.layer
      ? `${label(from)} (layer ${from.layer}) may not import its ${to.role} part (layer ${to.layer})`
      : undefined;
  }
  if (LEAVES.has(from.folder)) return `${from.folder}/ is a leaf and imports nothing from lib/`;
  const fromMethod = from.folder.startsWith('methods/');
  const toMethod = to.folder.startsWith('methods/');
  if (fromMethod && toMethod) return `a sign-in method never imports another method (${from.folder} → ${to.folder})`;
  if (toMethod && from.folder !== '.') {
    // The core knows a method only through the registry; it may name the option types of the
    // contract, and the layers above the router's peers (account, http, guard) may use what a
    // method's index.ts offers them (passkey management, password hashing, provider tokens).
    const contractType = typeOnly && to.role === 'providers' && to.layer <= from.layer;
    const offered = to.barrel === true && from.layer > LAYERS.methods! && from.folder !== 'router';
    if (!contractType && !offered)
      return `${label(from)} may not import a sign-in method (${to.folder}): reach it through the registry (lib/sign-in-methods.ts)`;
    return undefined;
  }
  if (to.role === from.role) return undefined;
  if (to.layer >= from.layer)
    return `${label(from)} (layer ${from.layer}) may not import ${label(to)} (layer ${to.layer})`;
  return undefined;
}

/** Checks a set of lib/ sources (paths relative to lib/, `/`-separated); returns one line per violation. */
export function checkArchitecture(files: Map<string, string>): string[] {
  const problems: string[] = [];
  const valueEdges = new Map<string, string[]>();
  for (const [rel, text] of files) {
    const from = placeOf(rel);
    if (from === undefined) {
      problems.push(
        `${rel}: lies in a folder the layer table does not place (add it to LAYERS in test/architecture.spec.ts and to ARCHITECTURE.md)`,
      );
      continue;
    }
    for (const ref of importsOf(rel, text)) {
      const where = `${rel}:${ref.line}: import '${ref.specifier}'`;
      if (!ref.specifier.startsWith('.')) {
        if (PLATFORM.test(ref.specifier) && !PLATFORM_FOLDERS.has(from.folder))
          problems.push(`${where}: only http/ and guard/ may import a platform package`);
        continue;
      }
      const target = relative('/lib', resolve('/lib', dirname(rel), ref.specifier))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts');
      if (target.startsWith('..')) {
        problems.push(`${where}: reaches outside lib/`);
        continue;
      }
      const to = placeOf(target);
      if (to === undefined) {
        problems.push(`${where}: imports a file in a folder the layer table does not place`);
        continue;
      }
      if (!ref.typeOnly) valueEdges.set(rel, [...(valueEdges.get(rel) ?? []), target]);
      const why = violation(from, to, ref.typeOnly);
      if (why) problems.push(`${where}: ${why}`);
    }
  }
  problems.push(...valueCycles(valueEdges));
  return problems;
}

/** Cycles of value imports between files (Tarjan's strongly connected components). */
function valueCycles(edges: Map<string, string[]>): string[] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  const connect = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (edges.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) cycles.push(`value import cycle: ${component.sort().join(' → ')}`);
    }
  };
  for (const v of edges.keys()) if (!indices.has(v)) connect(v);
  return cycles;
}

function libSources(): Map<string, string> {
  const lib = join(import.meta.dirname, '..', 'lib');
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        // Fixtures are test support (not built, not shipped): they wire the whole tree like a spec does.
        if (name !== 'fixtures') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts'))
        files.set(relative(lib, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(lib);
  return files;
}

describe('the checker', () => {
  const ok = new Map([
    ['types/common.types.ts', 'export interface A { a: string }'],
    ['errors/auth.errors.ts', 'export class E extends Error {}'],
    [
      'session/session.service.ts',
      "import type { A } from '../types/common.types.js';\nimport { E } from '../errors/auth.errors.js';",
    ],
    [
      'methods/oauth/oauth.flow.ts',
      "import { x } from '../../session/session.service.js';\nimport { v } from './oauth.validate.js';",
    ],
    [
      'methods/oauth/oauth.validate.ts',
      "import type { C } from './oauth.types.js';\nimport { r } from '../../config/resolve.js';",
    ],
    ['methods/oauth/oauth.types.ts', "import type { P } from '../../providers/provider.types.js';"],
    ['providers/provider.types.ts', "import type { C } from '../methods/oauth/oauth.types.js';"],
    ['config/resolve.ts', 'export const r = 1;'],
    ['sign-in-methods.ts', "import { f } from './methods/oauth/oauth.flow.js';"],
    ['methods/oauth/index.ts', "export { f } from './oauth.flow.js';"],
    ['guard/auth.service.ts', "import { f } from '../methods/oauth/index.js';"],
    [
      'http/auth.controller.ts',
      "import type { Request } from 'express';\nimport { y } from '../router/auth.router.js';",
    ],
    ['router/auth.router.ts', "export const y = 1;\nimport type { Q } from './types.js';"],
    ['router/types.ts', "import type { y } from './auth.router.js';"],
  ]);

  it('passes a well-layered tree (type-only cycles allowed)', () => {
    expect(checkArchitecture(ok)).toEqual([]);
  });

  it.each([
    [
      'an upward import',
      'session/session.service.ts',
      "import { c } from '../http/auth.controller.js';",
      /session\/session\.service\.ts:1: import '\.\.\/http\/auth\.controller\.js': session\/ \(layer 7\) may not import http\/ \(layer 13\)/,
    ],
    [
      'a type-only upward import',
      'config/x.ts',
      "import type { R } from '../router/auth.router.js';",
      /config\/x\.ts:1: .*config\/ \(layer 5\) may not import router\//,
    ],
    [
      'a leaf importing lib',
      'errors/auth.errors.ts',
      "import type { A } from '../types/common.types.js';",
      /errors\/ is a leaf/,
    ],
    [
      'a method importing another method',
      'methods/email/email.flow.ts',
      "import { z } from '../oauth/oauth.flow.js';",
      /a sign-in method never imports another method \(methods\/email → methods\/oauth\)/,
    ],
    [
      'the core importing a method instead of asking the registry',
      'router/auth.router.ts',
      "import { OAuthService } from '../methods/oauth/oauth.flow.js';",
      /router\/ may not import a sign-in method \(methods\/oauth\): reach it through the registry/,
    ],
    [
      "the core importing a method's validator",
      'config/resolve.ts',
      "import { validate } from '../methods/oauth/oauth.validate.js';",
      /config\/ may not import a sign-in method/,
    ],
    [
      "a method's validator importing its own flow",
      'methods/oauth/oauth.validate.ts',
      "import { f } from './oauth.flow.js';",
      /methods\/oauth\/ \(as config\/\) \(layer 5\) may not import its methods part \(layer 10\)/,
    ],
    [
      "a method's validator importing a layer above config",
      'methods/oauth/oauth.validate.ts',
      "import { s } from '../../session/session.service.js';",
      /methods\/oauth\/ \(as config\/\) \(layer 5\) may not import session\/ \(layer 7\)/,
    ],
    [
      "the router importing a method's index.ts",
      'router/auth.router.ts',
      "import { x } from '../methods/oauth/index.js';",
      /router\/ may not import a sign-in method/,
    ],
    [
      "the session layer importing a method's index.ts",
      'session/s.ts',
      "import { x } from '../methods/oauth/index.js';",
      /session\/ may not import a sign-in method/,
    ],
    [
      'a file directly in methods/',
      'methods/loose.ts',
      'export const l = 1;',
      /methods\/loose\.ts: lies in a folder the layer table does not place/,
    ],
    [
      'express outside the edge',
      'router/auth.router.ts',
      "import type { Request } from 'express';",
      /router\/auth\.router\.ts:1: import 'express': only http\/ and guard\//,
    ],
    [
      'fastify outside the edge',
      'session/s.ts',
      "import { FastifyAdapter } from '@nestjs/platform-fastify';",
      /only http\/ and guard\//,
    ],
    [
      'a dynamic upward import',
      'providers/p.ts',
      "export const f = () => import('../http/auth.controller.js');",
      /providers\/ \(layer 3\) may not import http\//,
    ],
    [
      'an unplaced folder',
      'misc/helper.ts',
      'export const h = 1;',
      /misc\/helper\.ts: lies in a folder the layer table does not place/,
    ],
  ])('fails on %s, naming the file and the import', (_label, file, text, message) => {
    const problems = checkArchitecture(new Map([...ok, [file, text]]));
    expect(problems.some((p) => message.test(p))).toBe(true);
  });

  it('fails on a value import cycle', () => {
    const problems = checkArchitecture(
      new Map([
        ['session/a.ts', "import { b } from './b.js';\nexport const a = 1;"],
        ['session/b.ts', "import { a } from './a.js';\nexport const b = 2;"],
      ]),
    );
    expect(problems).toEqual(['value import cycle: session/a.ts → session/b.ts']);
  });
});

describe('lib/', () => {
  const files = libSources();

  it('follows the layer rules', () => {
    expect(checkArchitecture(files)).toEqual([]);
  });

  it('has every built-in sign-in method in its own folder, reached only through the registry', () => {
    const registry = importsOf('sign-in-methods.ts', files.get('sign-in-methods.ts') ?? '').map((r) => r.specifier);
    for (const method of ['oauth', 'email', 'credentials', 'webauthn']) {
      expect([...files.keys()]).toContain(`methods/${method}/${method}.method.ts`);
      expect(registry).toContain(`./methods/${method}/${method}.method.js`);
    }
  });
});
