/**
 * The end-to-end suite (`npm run test:e2e`): this package in a real n8n, against the sandbox, and
 * its editor in Chromium. A published trigger polls once a minute: a test that waits for two
 * polls needs minutes.
 */
module.exports = require('./test/helpers/e2eSuiteConfig')('e2e', 240000);
