import type { Theme } from '../../types/common.types.js';
import { escapeAttr, escapeHtml, readableTextColor, safeCssColor, safeUrl } from '../../util/html-escape.js';

/** The sign-in email, ready for any transport. */
export interface VerificationEmail {
  /** `Sign in to <host>`. */
  subject: string;
  /** The plain-text part. */
  text: string;
  /** The HTML part: every dynamic value escaped, no remote content but the theme's logo. */
  html: string;
}

/** The default brand colour of the email's button (white text on it passes WCAG AA). */
const DEFAULT_BRAND = '#2563eb';

/**
 * The default sign-in email for `url`. Only server-built values appear in it (the link and its
 * host, the theme): never the address the user typed, so a crafted address cannot inject markup
 * into the message (CVE-2022-31127). Each value is escaped anyway.
 */
export function renderVerificationEmail(params: {
  url: string;
  theme?: Theme;
  purpose?: EmailPurpose;
  /** A one-time code to show instead of the link's button (`two-factor-code`). */
  code?: string;
}): VerificationEmail {
  const { url } = params;
  // Only digits are shown as a code (the sender passes the token it made).
  const code = params.code && /^\d{4,10}$/.test(params.code) ? params.code : undefined;
  const host = new URL(url).host;
  const copy = EMAIL_COPY[params.purpose ?? 'signin'];
  const theme = params.theme ?? {};
  const brand = safeCssColor(theme.brandColor) ?? DEFAULT_BRAND;
  const buttonText = safeCssColor(theme.buttonText) ?? readableTextColor(brand);
  const dark = theme.colorScheme === 'dark';
  const background = dark ? '#18181b' : '#f4f4f5';
  const card = dark ? '#27272a' : '#ffffff';
  const text = dark ? '#f4f4f5' : '#18181b';
  const muted = dark ? '#d4d4d8' : '#52525b';
  const logo = safeUrl(theme.logo);
  // A zero-width space after each dot stops mail clients from turning the host into a link.
  const hostHtml = escapeHtml(host).replace(/\./g, '&#8203;.');
  const href = escapeAttr(url);

  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(copy.title)} ${escapeHtml(host)}</title></head>`,
    `<body style="margin:0;padding:0;background:${background};">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:${background};padding:24px 0;">`,
    '<tr><td align="center">',
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:480px;background:${card};border-radius:12px;padding:24px;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:${text};">`,
    logo
      ? `<tr><td align="center" style="padding-bottom:16px;"><img src="${escapeAttr(logo)}" alt="" style="max-width:160px;max-height:72px;"></td></tr>`
      : '',
    `<tr><td align="center" style="font-size:20px;line-height:1.4;padding-bottom:16px;">${escapeHtml(copy.title)} <strong>${hostHtml}</strong></td></tr>`,
    '<tr><td align="center" style="padding-bottom:16px;">',
    code
      ? `<span style="display:inline-block;padding:12px 24px;border-radius:8px;border:1px solid ${muted};font-family:ui-monospace,Menlo,Consolas,monospace;font-size:28px;font-weight:600;letter-spacing:.2em;">${escapeHtml(code)}</span>`
      : `<a href="${href}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;border-radius:8px;background:${brand};color:${buttonText};font-size:16px;font-weight:600;text-decoration:none;">${escapeHtml(copy.button)}</a>`,
    '</td></tr>',
    `<tr><td align="center" style="font-size:14px;line-height:1.5;color:${muted};">${escapeHtml(copy.footer)}</td></tr>`,
    '</table>',
    '</td></tr>',
    '</table>',
    '</body>',
    '</html>',
  ]
    .filter(Boolean)
    .join('\n');

  return {
    subject: `${copy.title} ${host}`,
    text: `${copy.title} ${host}\n\n${code ?? url}\n\n${copy.footer}\n`,
    html,
  };
}

/**
 * What an email sent through the provider's sender is for: a sign-in link (the default), the link
 * that confirms a new address (`AuthService.changeEmail`), or the notice to the old address once
 * the change is done (its link opens the account page).
 */
export type EmailPurpose = 'signin' | 'email-change' | 'email-change-notice' | 'two-factor-code';

const EMAIL_COPY: Record<EmailPurpose, { title: string; button: string; footer: string }> = {
  signin: {
    title: 'Sign in to',
    button: 'Sign in',
    footer: 'If you did not request this email you can safely ignore it.',
  },
  'email-change': {
    title: 'Confirm your new email address on',
    button: 'Confirm this address',
    footer: 'If you did not ask to use this address, ignore this email: nothing changes.',
  },
  'email-change-notice': {
    title: 'Your email address was changed on',
    button: 'Review your account',
    footer: 'If you did not make this change, sign in and secure your account, or contact support.',
  },
  'two-factor-code': {
    title: 'Your sign-in code for',
    button: 'Continue signing in',
    footer:
      'Enter this code on the page that asked for it: it works once, for 10 minutes. If you are not signing in, someone knows your password: change it.',
  },
};
