import { Controller, Get, Header, Inject } from '@nestjs/common';
import { escape, samplePage } from './html.js';
import type { MailCatcher } from './mail-catcher.js';
import { MAIL_CATCHER } from './sample.tokens.js';

/** The development inbox: every mail the SMTP catcher received, newest first, with its links. */
@Controller('dev/inbox')
export class DevInboxController {
  constructor(@Inject(MAIL_CATCHER) private readonly mail: MailCatcher) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  inbox(): string {
    const messages = [...this.mail.messages].reverse();
    const list = messages.length
      ? messages
          .map(
            (m) => `<section>
<h2>${escape(m.subject || '(no subject)')}</h2>
<p class="muted">To ${escape(m.to.join(', '))} · ${escape(m.receivedAt.toISOString())}</p>
${m.links.length ? `<ul>${m.links.map((l) => `<li><a href="${escape(l)}">${escape(l)}</a></li>`).join('')}</ul>` : ''}
<details><summary>Text of the mail</summary><pre>${escape(m.text)}</pre></details>
</section>`,
          )
          .join('\n')
      : '<section><p>No mail yet. Sign in with Email on the sign-in page, then reload this page.</p></section>';
    return samplePage(
      'Development inbox',
      `<h1>Development inbox</h1>
<p class="muted">Mail sent to the sample's SMTP server on 127.0.0.1:${escape(this.mail.port)}. Nothing leaves this machine.</p>
${list}`,
    );
  }
}
