/**
 * The study page (study.html), served at /study/<id> for participants and at
 * /study/<id>/admin for the researcher. ?renderer=canvas forces Phaser's Canvas renderer
 * (headless browsers without a GPU).
 */
import { el } from '../dom';
import { type PageLlmSetting, webPlatform } from '../platform';
import { adminPage } from './admin';
import { participantPage } from './participant';
import '../styles.css';
import './study.css';

function main(): void {
  const root = document.getElementById('app')!;
  const [first, id, sub] = location.pathname.split('/').filter(Boolean);
  if (first !== 'study' || !id || !/^[a-z0-9][a-z0-9-]{1,47}$/.test(id)) {
    root.append(el('p', { class: 'study-card form-error', text: 'This address does not name a study. Check the link you were given.' }));
    return;
  }
  if (sub === 'admin') adminPage(root, id);
  else {
    // Trained skills and the flat policy load from the server's /models/ on first use; the
    // language model runs where the study says (llmRuns), known once the study is read.
    let told: (setting: PageLlmSetting) => void = () => undefined;
    const llm = new Promise<PageLlmSetting>((resolve) => (told = resolve));
    void participantPage(root, id, webPlatform('/models/', llm), (study) => told({ runs: study.llmRuns }));
  }
}

main();
