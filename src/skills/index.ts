export * from './catalogue';
export * from './policy';
export * from './scripted';
