/** DI tokens of the sample. */
export const SAMPLE_CONFIG = Symbol('SAMPLE_CONFIG');
export const SAMPLE_URLS = Symbol('SAMPLE_URLS');
export const MAIL_CATCHER = Symbol('MAIL_CATCHER');

/** Where the sample and its helpers listen. */
export interface SampleUrls {
  /** e.g. `http://localhost:3000` */
  app: string;
  /** e.g. `http://127.0.0.1:3001` */
  idpIssuer: string;
  smtpPort: number;
}
