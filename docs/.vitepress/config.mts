// The documentation site: VitePress (built offline: `npm run docs:build`; `npm run docs:dev` to write).
// The API reference under /api/ is generated from the source's TSDoc by TypeDoc (`npm run docs:api`).
import { existsSync, readFileSync } from 'node:fs';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { withMermaid } from 'vitepress-plugin-mermaid';

/** TypeDoc's sidebar for the API reference (written by typedoc-vitepress-theme; absent before `docs:api`). */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = new URL('../api/typedoc-sidebar.json', import.meta.url);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[]) : [];
}

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Getting started',
    items: [
      { text: 'Install', link: '/start/' },
      { text: 'A new app on Express', link: '/start/express' },
      { text: 'On Fastify', link: '/start/fastify' },
      { text: 'In an existing app', link: '/start/existing-app' },
      { text: 'From CommonJS', link: '/start/commonjs' },
      { text: 'The sample app', link: '/start/sample' },
      { text: 'Configuration', link: '/start/configuration' },
    ],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'Sessions and strategies', link: '/concepts/sessions' },
      { text: 'The guard', link: '/concepts/guard' },
      { text: 'The adapter', link: '/concepts/adapter' },
      { text: 'Routes, cookies and redirects', link: '/concepts/routes' },
    ],
  },
  {
    text: 'Sign-in methods',
    items: [
      { text: 'OAuth 2.0 and OpenID Connect', link: '/sign-in/oauth' },
      { text: 'Built-in providers', link: '/sign-in/providers' },
      { text: 'Email magic links', link: '/sign-in/email' },
      { text: 'Credentials (passwords)', link: '/sign-in/credentials' },
      { text: 'Passkeys (WebAuthn)', link: '/sign-in/passkeys' },
      { text: 'Your own sign-in method', link: '/sign-in/custom-method' },
    ],
  },
  { text: 'Two-factor authentication', link: '/two-factor' },
  {
    text: 'Account management',
    items: [
      { text: 'Account page and API', link: '/account/' },
      { text: 'Sessions and devices', link: '/account/sessions' },
      { text: 'Recent sign-in', link: '/account/recent-sign-in' },
      { text: 'Linked accounts', link: '/account/linked-accounts' },
      { text: 'Passkeys, email and password', link: '/account/passkeys-email-password' },
      { text: 'Deleting an account', link: '/account/deleting' },
      { text: "Calling the provider's API", link: '/account/provider-tokens' },
      { text: 'Logging out everywhere', link: '/account/logout' },
    ],
  },
  {
    text: 'Apps and services',
    items: [
      { text: 'Single-page apps', link: '/apps/spa' },
      { text: 'Mobile and desktop apps', link: '/apps/native' },
      { text: 'Tokens for other services, API keys', link: '/apps/service-tokens' },
    ],
  },
  {
    text: 'GraphQL, WebSockets, microservices',
    items: [
      { text: 'GraphQL', link: '/shapes/graphql' },
      { text: 'WebSockets', link: '/shapes/websockets' },
      { text: 'Microservices', link: '/shapes/microservices' },
    ],
  },
  {
    text: 'Storage',
    items: [
      { text: 'Overview', link: '/storage/' },
      { text: 'TypeORM (the default)', link: '/storage/typeorm' },
      { text: 'Drizzle', link: '/storage/drizzle' },
      { text: 'Prisma', link: '/storage/prisma' },
      { text: 'One database with Auth.js', link: '/storage/authjs' },
      { text: 'Other adapters', link: '/storage/other-adapters' },
      { text: 'Migrations', link: '/storage/migrations' },
    ],
  },
  {
    text: 'Built-in pages',
    items: [
      { text: 'The pages', link: '/pages/' },
      { text: 'Theme, marks and languages', link: '/pages/theming' },
      { text: 'Your own pages', link: '/pages/custom' },
    ],
  },
  {
    text: 'Running it',
    items: [
      { text: 'Several instances', link: '/instances' },
      { text: 'Security model', link: '/security' },
      { text: 'Performance', link: '/performance' },
      { text: 'Testing your app', link: '/testing' },
    ],
  },
  {
    text: 'Migrating',
    items: [
      { text: 'From Auth.js', link: '/migrating/authjs' },
      { text: 'From @nestjs/passport', link: '/migrating/passport' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Options', link: '/reference/options' },
      { text: 'Errors', link: '/reference/errors' },
      { text: 'The nestjs-auth command', link: '/reference/cli' },
      { text: 'API reference', link: '/api/' },
      { text: 'FAQ and troubleshooting', link: '/faq' },
    ],
  },
];

export default withMermaid(
  defineConfig({
    title: 'nestjs-auth',
    description:
      'Authentication for NestJS: OAuth 2.0 / OpenID Connect, magic links, passwords, passkeys, two factors, ' +
      'native apps and API keys, with JWT or database sessions, compatible with Auth.js.',
    lang: 'en',
    cleanUrls: true,
    // DOCS_SKIP_API=1 leaves the generated reference out (a faster `docs:dev` while writing guides).
    // parts/: pieces included into pages (diagrams), no pages of their own.
    srcExclude: ['parts/**', ...(process.env.DOCS_SKIP_API ? ['api/**'] : [])],
    lastUpdated: false,
    // Internal links are checked by VitePress at build (a dead page fails it); anchors by
    // scripts/check-docs-links.mjs over the built site.
    ignoreDeadLinks: process.env.DOCS_SKIP_API ? [/^\/api\//] : false,
    markdown: { theme: { light: 'github-light', dark: 'github-dark' } },
    themeConfig: {
      nav: [
        { text: 'Guide', link: '/start/' },
        { text: 'Reference', link: '/reference/options' },
        { text: 'API', link: '/api/' },
        { text: 'FAQ', link: '/faq' },
      ],
      sidebar: {
        '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar() }],
        '/': guide,
      },
      search: {
        provider: 'local',
        options: {
          miniSearch: {
            // The guides first: a term found in a guide and in the generated reference shows the guide
            // above the reference's symbol pages.
            searchOptions: { boostDocument: (id: string) => (id.startsWith('/api/') ? 0.35 : 1) },
          },
        },
      },
      outline: { level: [2, 3] },
    },
    mermaid: {},
  }),
);
