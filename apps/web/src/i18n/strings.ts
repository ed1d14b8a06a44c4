/**
 * The UI's text in the current language: `S` always reads the language chosen by `?lang=zh` or the
 * header's switch. The tables are en.ts (the keys) and zh.ts beside it. Import it as `import { S } from '../i18n/strings'`.
 */
import { en, type Strings } from './en';
import { zh } from './zh';

export type { Strings } from './en';

export const LANGUAGES = ['en', 'zh'] as const;
export type Lang = (typeof LANGUAGES)[number];
/** each language's name in itself, for the header's switch */
export const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English', zh: '中文' };
/** the value of <html lang> */
export const HTML_LANG: Record<Lang, string> = { en: 'en', zh: 'zh-CN' };

const tables: Record<Lang, Strings> = { en, zh };
let current: Strings = en;
let currentLang: Lang = 'en';

export function setLanguage(lang: Lang): void {
  currentLang = lang;
  current = tables[lang] ?? en;
}

export function language(): Lang {
  return currentLang;
}

/** The table of one language, for tests and for text that must not follow the switch. */
export function stringsFor(lang: Lang): Strings {
  return tables[lang];
}

/**
 * The current language's table. A proxy, so modules that imported `S` once read the new language after
 * `setLanguage` (the app re-renders its tree when the language changes; canvases read S every frame).
 */
export const S: Strings = new Proxy({} as Strings, {
  get: (_t, key) => current[key as keyof Strings],
  has: (_t, key) => key in current,
  ownKeys: () => Reflect.ownKeys(current),
  getOwnPropertyDescriptor: (_t, key) => ({ ...Reflect.getOwnPropertyDescriptor(current, key), configurable: true }),
});
