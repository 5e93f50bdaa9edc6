import { Controller, Get, Header, Inject, Req, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { AuthService, AuthSession, CurrentUser, type Session, type User } from '../lib/index.js';
import { AccountEntity, UserEntity } from '../lib/typeorm.js';
import { BrowserAuthGuard } from './browser-auth.guard.js';
import { escape, samplePage } from './html.js';
import { DEMO_USER, type SampleConfig } from './sample.config.js';
import { SAMPLE_CONFIG, SAMPLE_URLS, type SampleUrls } from './sample.tokens.js';

/** The sample's own pages: a home page and a protected page. */
@Controller()
export class SampleController {
  constructor(
    private readonly auth: AuthService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SAMPLE_CONFIG) private readonly config: SampleConfig,
    @Inject(SAMPLE_URLS) private readonly urls: SampleUrls,
  ) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  async home(@Req() req: Request): Promise<string> {
    const current = await this.auth.getSession(req);
    const who = current
      ? `<p>You are signed in as <strong>${escape(current.user.name ?? current.user.email ?? current.user.id)}</strong>.</p>
<p><a class="button" href="/private">Open the protected page</a></p>`
      : `<p>You are not signed in.</p>
<p><a class="button" href="/auth/signin?callbackUrl=%2Fprivate">Sign in</a></p>`;
    const extra = [
      this.config.github
        ? '<li><strong>GitHub</strong>: configured from AUTH_GITHUB_ID / AUTH_GITHUB_SECRET.</li>'
        : '',
      this.config.google
        ? '<li><strong>Google</strong>: configured from AUTH_GOOGLE_ID / AUTH_GOOGLE_SECRET.</li>'
        : '',
    ].join('');
    return samplePage(
      'nestjs-auth sample',
      `<h1>nestjs-auth sample</h1>
<section>
${who}
</section>
<section>
<h2>Ways to sign in</h2>
<ul>
<li><strong>Demo IdP</strong>: a real OpenID Provider running at <a href="${escape(this.urls.idpIssuer)}/.well-known/openid-configuration">${escape(this.urls.idpIssuer)}</a>. Press "Continue" there.</li>
<li><strong>Email</strong>: the magic link goes to a local SMTP server; read it in the <a href="/dev/inbox">development inbox</a>.</li>
<li><strong>Credentials</strong>: email <code>${escape(DEMO_USER.email)}</code>, password <code>${escape(DEMO_USER.password)}</code>.</li>
<li><strong>Passkey</strong>: type your email and press "Create a passkey"; afterwards "Sign in with Passkey", or the email field's autofill, signs you in with it.</li>
${extra}
</ul>
<p class="muted">GitHub and Google buttons appear when AUTH_GITHUB_ID / AUTH_GOOGLE_ID and their secrets are set (see .env.example).</p>
</section>`,
    );
  }

  @Get('private')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @UseGuards(BrowserAuthGuard)
  async private(@CurrentUser() user: User & { id: string }, @AuthSession() session: Session): Promise<string> {
    const accounts = await this.dataSource
      .getRepository(AccountEntity)
      .find({ where: { userId: user.id }, order: { provider: 'ASC' } });
    const passkeys = await this.auth.listPasskeys(user.id);
    // The session's user has no emailVerified: read it from the users table.
    const stored = await this.dataSource.getRepository(UserEntity).findOneBy({ id: user.id });
    const verified = stored?.emailVerified instanceof Date ? stored.emailVerified : undefined;
    const rows = (pairs: Array<[string, unknown]>) =>
      pairs
        .map(
          ([k, v]) =>
            `<tr><th scope="row">${escape(k)}</th><td>${escape(v instanceof Date ? v.toISOString() : (v ?? '—'))}</td></tr>`,
        )
        .join('');
    return samplePage(
      'Protected page',
      `<h1>Protected page</h1>
<section>
<h2>You</h2>
<table>${rows([
        ['id', user.id],
        ['name', user.name],
        ['email', user.email],
        ['email verified', verified ?? 'not verified'],
      ])}</table>
</section>
<section>
<h2>Linked accounts</h2>
${
  accounts.length
    ? `<table><tr><th scope="col">provider</th><th scope="col">type</th><th scope="col">account id</th></tr>${accounts
        .map(
          (a) =>
            `<tr><td>${escape(a.provider)}</td><td>${escape(a.type)}</td><td>${escape(a.providerAccountId)}</td></tr>`,
        )
        .join('')}</table>`
    : '<p>None: you signed in with an emailed link (email sign-ins store no account).</p>'
}
</section>
<section>
<h2>Passkeys</h2>
${
  passkeys.length
    ? `<ul>${passkeys.map((p) => `<li>${escape(p.provider)}: ${escape(p.credentialDeviceType)}, used ${escape(p.counter)} times</li>`).join('')}</ul>`
    : '<p>No passkey yet.</p>'
}
<form data-webauthn-provider="passkey" data-webauthn-action="register">
<input type="hidden" name="callbackUrl" value="/private">
<button type="submit" class="button">Add a passkey</button>
<p class="muted" role="alert" data-webauthn-error hidden></p>
<noscript><p class="muted">Adding a passkey needs JavaScript.</p></noscript>
</form>
</section>
<section>
<h2>Session</h2>
<p class="muted">Strategy: ${escape(this.config.sessionStrategy)}. What <code>GET /auth/session</code> returns:</p>
<pre>${escape(JSON.stringify(session, null, 2))}</pre>
<p><a class="button" href="/auth/account">Manage your account</a></p>
<p><a class="button" href="/auth/signout?callbackUrl=%2F">Sign out</a></p>
</section>
<script src="/auth/webauthn-client.js" defer></script>`,
    );
  }
}
