// The shared-state encryption key of the tests' gateways: a gateway with Redis refuses to start
// without one (issue 28.8). Test-only value, passed through the environment like a chart would.
export const TEST_ENCRYPTION_ENV = 'AGW_TEST_REDIS_ENCRYPTION_KEY';
export const testEncryption = { keys: [{ env: TEST_ENCRYPTION_ENV }] };
export const testEncryptionEnv = { [TEST_ENCRYPTION_ENV]: 'test-only-redis-encryption-key-0123456789abcdef' };
