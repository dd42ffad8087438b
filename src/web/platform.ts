/**
 * The page's platform: trained models fetched from the server's models/ and played by
 * the TypeScript network (web/models.ts), the language model through the server's proxy (/api/llm, live timing),
 * the browser's clock, and a person at the keyboard. Built once by each page's entry.
 */
import { proxyLlmAccess } from '../llm';
import { ModelLibrary } from '../skills';
import { type Platform, createPlatform } from '../teams';
import { webModelSource } from './models';

export function webPlatform(modelBase = 'models/'): Platform {
  return createPlatform({ models: new ModelLibrary(webModelSource(modelBase)), llm: proxyLlmAccess(), person: true });
}
