/**
 * The n8n-engine test harness: runs this package's nodes in n8n-core's own execution against a
 * real HTTP service (the sandbox). Nothing of n8n's routing, paging or authentication is
 * re-implemented here; only what n8n's server would supply (node registry, credential store,
 * a workflow around the node) is.
 *
 * - `runNode` executes a node with WorkflowExecute; `loadOptions` fills a dropdown; `listSearch`
 *   is one call of a resource locator's list (a search, a page as the user scrolls).
 * - `savedWorkflow` runs a node execution after execution, its static data saved as n8n saves it.
 * - `runInRounds` runs a node several times in one execution, as Loop Over Items does.
 * - `createPoller` runs a polling trigger with PollTriggerExecutor and persistent static data.
 * - `CredentialStore` / `credentialsFor(sandbox)` hold credentials; `connectOAuth2` performs the
 *   PKCE connection with n8n's OAuth2 client; `testCredential` is the credential "Test" button.
 */
export * from './credentials';
export * from './credentialTest';
export * from './engine';
export * from './oauth2';
export * from './poll';
export * from './production';
export * from './rounds';
export * from './runNode';
