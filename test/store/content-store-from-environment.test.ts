import path from 'node:path';
import { contentStoreFromUrl, namedContentStoreFromEnvironment } from '../../src/store';

describe('the content store a setting names', () => {
  it('is a folder in TOLLGATE_STATE_DIR by default, not one that follows the working directory', () => {
    expect(namedContentStoreFromEnvironment({ TOLLGATE_STATE_DIR: '/var/lib/tollgate-a' }).description).toBe(
      '/var/lib/tollgate-a/store',
    );
    expect(namedContentStoreFromEnvironment({}).description).toBe(path.resolve('.tollgate/store'));
  });

  it('is TOLLGATE_STORE_URL first, then the older TOLLGATE_STORE_DIR', () => {
    const environment = { TOLLGATE_STORE_URL: 's3://shared-bucket/prod', TOLLGATE_STORE_DIR: '/tmp/x' };
    expect(namedContentStoreFromEnvironment(environment).description).toBe('s3://shared-bucket/prod/');
    expect(namedContentStoreFromEnvironment({ TOLLGATE_STORE_DIR: '/tmp/x' }).description).toBe('/tmp/x');
  });

  it('reads folders as paths or file URLs, and S3 as s3://bucket/prefix', () => {
    expect(contentStoreFromUrl('file:///srv/store').description).toBe('/srv/store');
    expect(contentStoreFromUrl('s3://bucket-1').description).toBe('s3://bucket-1/');
    expect(contentStoreFromUrl('s3://bucket-1/a//b/').description).toBe('s3://bucket-1/a/b/');
  });

  it('refuses a URL it cannot serve, saying what it expects', () => {
    expect(() => contentStoreFromUrl('gs://bucket/x')).toThrow(/neither s3:\/\/bucket\/prefix nor a folder/);
    expect(() => contentStoreFromUrl('s3:///prefix')).toThrow(/names no valid bucket/);
    expect(() => contentStoreFromUrl('s3://Not_A_Bucket/x')).toThrow(/names no valid bucket/);
  });
});
