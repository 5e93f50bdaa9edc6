// The built-in pages in German: `AuthModule.forRoot({ messages: GERMAN_MESSAGES })`.
import type { PageMessages } from './en.messages.js';

const ANDERES_KONTO = 'Melden Sie sich mit einem anderen Konto an.';

export const GERMAN_MESSAGES: PageMessages = {
  lang: 'de',

  'signIn.title': 'Anmelden',
  'signIn.withProvider': 'Mit {provider} anmelden',
  'signIn.or': 'oder',
  'signIn.none': 'Es ist keine Anmeldemethode eingerichtet.',
  'signIn.emailLabel': 'E-Mail',
  'signIn.emailPlaceholder': 'name@beispiel.de',
  'signIn.continue': 'Weiter',
  'signIn.invalidEmail': 'Geben Sie eine gültige E-Mail-Adresse ein, etwa name@beispiel.de.',
  'signIn.signingInAs': 'Anmeldung als',
  'signIn.switch': 'Andere Adresse oder Anmeldemethode verwenden',
  'signIn.emailLink': 'Anmeldelink per E-Mail senden',
  'signIn.passkey': 'Mit einem Passkey anmelden',
  'signIn.createPasskey': 'Passkey erstellen',
  'signIn.passkeyNewHere': 'Neu hier? Geben Sie Ihre E-Mail-Adresse ein und erstellen Sie dann einen Passkey.',
  'signIn.needsJavaScript': 'Die Anmeldung mit {provider} benötigt JavaScript.',
  'signIn.passkeyNeedsJavaScript': 'Passkeys benötigen JavaScript.',
  'signIn.reason': 'Grund: {code}',

  'error.Signin': ANDERES_KONTO,
  'error.OAuthSignin': ANDERES_KONTO,
  'error.OAuthSignInError': ANDERES_KONTO,
  'error.OAuthCallbackError':
    'Die Anmeldung wurde abgebrochen oder vom Anbieter abgelehnt. Versuchen Sie es erneut oder verwenden Sie ein anderes Konto.',
  'error.OAuthCreateAccount': ANDERES_KONTO,
  'error.EmailCreateAccount': ANDERES_KONTO,
  'error.Callback': ANDERES_KONTO,
  'error.OAuthAccountNotLinked':
    'Diese E-Mail-Adresse wird bereits von einer anderen Anmeldemethode verwendet. Melden Sie sich so an wie beim ersten Mal, um zu bestätigen, dass Sie es sind.',
  'error.AccountNotLinked':
    'Dieser Passkey oder diese E-Mail-Adresse gehört zu einem anderen Konto. Melden Sie sich so an wie beim ersten Mal.',
  'error.EmailSignin':
    'Die Anmelde-E-Mail konnte nicht gesendet werden. Prüfen Sie die Adresse und versuchen Sie es erneut.',
  'error.CredentialsSignin': 'Die Anmeldung ist fehlgeschlagen. Prüfen Sie, ob Ihre Angaben stimmen.',
  'error.SessionRequired': 'Bitte melden Sie sich an, um fortzufahren.',
  'error.SessionExpired': 'Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an, um fortzufahren.',
  'error.InvalidSession': 'Bitte melden Sie sich erneut an, um fortzufahren.',
  'error.ReauthenticationRequired': 'Bitte melden Sie sich zu Ihrer Sicherheit erneut an, um fortzufahren.',
  'error.RateLimited': 'Zu viele Versuche. Warten Sie einige Minuten und versuchen Sie es dann erneut.',
  'error.MissingCSRF':
    'Das Formular ist abgelaufen oder wurde von einer anderen Seite gesendet. Bitte versuchen Sie es erneut.',
  'error.InvalidCheck':
    'Die Anmeldung hat zu lange gedauert oder wurde in einem anderen Tab begonnen. Bitte beginnen Sie erneut.',
  'error.WebAuthnVerificationError':
    'Ihr Passkey konnte nicht überprüft werden. Versuchen Sie es erneut oder melden Sie sich anders an.',
  'error.Verification': 'Der Anmeldelink ist nicht mehr gültig. Fordern Sie einen neuen an.',
  'error.AccessDenied': 'Sie haben keine Berechtigung, sich anzumelden.',
  'error.MissingAdapterMethods':
    'Diese Anmeldung ist gerade nicht möglich: Der Server ist nicht vollständig eingerichtet.',
  'error.Configuration': 'Die Anmeldung ist gerade nicht möglich: Die Serverkonfiguration ist fehlerhaft.',
  'error.Unknown': 'Die Anmeldung ist nicht möglich.',

  'signOut.title': 'Abmelden',
  'signOut.question': 'Möchten Sie sich wirklich abmelden?',
  'signOut.button': 'Abmelden',
  'signOut.cancel': 'Abbrechen',

  'verifyRequest.title': 'Prüfen Sie Ihre E-Mails',
  'verifyRequest.sentTo': 'Ein Anmeldelink wurde an {email} gesendet.',
  'verifyRequest.sent': 'Ein Anmeldelink wurde an Ihre E-Mail-Adresse gesendet.',
  'verifyRequest.openIt': 'Öffnen Sie ihn auf diesem oder einem anderen Gerät, um sich anzumelden.',
  'verifyRequest.expires': 'Er funktioniert einmal und läuft in {duration} ab.',
  'verifyRequest.once': 'Er funktioniert einmal.',
  'verifyRequest.spam': 'Wenn er nicht in wenigen Minuten ankommt, sehen Sie im Spam-Ordner nach.',
  'verifyRequest.resendOther': 'Falsche Adresse oder keine E-Mail? Neuen Link senden',
  'verifyRequest.resend': 'Neuen Link senden',
  'verifyRequest.back': 'Zurück zu {site}',
  'duration.day': '{n} Tag',
  'duration.days': '{n} Tagen',
  'duration.hour': '{n} Stunde',
  'duration.hours': '{n} Stunden',
  'duration.minute': '{n} Minute',
  'duration.minutes': '{n} Minuten',
  'duration.and': ' und ',

  'errorPage.signIn': 'Anmelden',
  'errorPage.home': 'Zur Startseite',
  'errorPage.server.heading': 'Serverfehler',
  'errorPage.server.message':
    'Die Serverkonfiguration ist fehlerhaft. Die Administratoren der Website finden die Einzelheiten in den Serverprotokollen.',
  'errorPage.badRequest.heading': 'Etwas ist schiefgelaufen',
  'errorPage.badRequest.message':
    'Die Anmeldeanfrage war unverständlich. Bitte beginnen Sie erneut auf der Anmeldeseite.',
  'errorPage.accessDenied.heading': 'Zugriff verweigert',
  'errorPage.accessDenied.message': 'Sie haben keine Berechtigung, sich anzumelden.',
  'errorPage.verification.heading': 'Anmeldung nicht möglich',
  'errorPage.verification.message':
    'Der Anmeldelink ist nicht mehr gültig. Er wurde vielleicht schon benutzt oder ist abgelaufen. Fordern Sie auf der Anmeldeseite einen neuen an.',
  'errorPage.passkey.heading': 'Passkey nicht akzeptiert',
  'errorPage.passkey.message':
    'Ihr Passkey konnte nicht überprüft werden. Versuchen Sie es erneut oder melden Sie sich anders an.',
  'errorPage.expired.heading': 'Anmeldung abgelaufen',
  'errorPage.expired.message':
    'Die Anmeldung hat zu lange gedauert oder wurde in einem anderen Browser oder Tab begonnen. Bitte beginnen Sie erneut.',
  'errorPage.alreadyLinked.heading': 'Konto bereits verknüpft',
  'errorPage.alreadyLinked.message':
    'Dieses Konto ist bereits mit einem anderen Benutzer verknüpft und wurde daher nicht mit Ihrem verknüpft. Melden Sie sich damit an, um diesen Benutzer zu verwenden, oder heben Sie die Verknüpfung dort zuerst auf.',
  'errorPage.rateLimited.heading': 'Zu viele Versuche',
  'errorPage.rateLimited.message': 'Warten Sie einige Minuten und versuchen Sie es dann erneut.',
  'errorPage.default.heading': 'Fehler',
  'errorPage.default.message': 'Bei der Anmeldung ist etwas schiefgelaufen.',

  'emailConfirm.title': 'Anmelden',
  'emailConfirm.continueAs': 'Als {email} fortfahren?',
  'emailConfirm.notYou':
    'Wenn Sie keine Anmeldung angefordert haben, schließen Sie diese Seite: Ohne Klick auf die Schaltfläche passiert nichts.',
  'emailConfirm.button': 'Anmelden',
};
