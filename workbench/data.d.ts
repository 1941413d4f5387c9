declare module "workbench:data" {
  const data: {
    /** Sample vault: path → markdown. */
    vault: Record<string, string>;
    /** Recorded exchanges by set name. */
    replay: Record<string, unknown>;
  };
  export default data;
}
