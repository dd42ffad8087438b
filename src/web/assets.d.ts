/** A file the page's bundler (Vite) serves as it is: the import is its URL. */
declare module '*?url' {
  const url: string;
  export default url;
}
