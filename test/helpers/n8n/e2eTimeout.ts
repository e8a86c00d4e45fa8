// Each end-to-end test file's timeout (jest reads `testTimeout` only at the root of its config): a
// published trigger polls once a minute, so a test waits minutes.
jest.setTimeout(300_000);
