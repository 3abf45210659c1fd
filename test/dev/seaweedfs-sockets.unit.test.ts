import path from 'node:path';
import { seaweedFsLocalSockets } from '../../src/dev/seaweedfs';

describe("where SeaweedFS's sockets go", () => {
  it('beside its data, when the folder is short enough for a Unix socket', () => {
    expect(seaweedFsLocalSockets('/var/lib/tollgate/seaweedfs')).toEqual({
      s3: '/var/lib/tollgate/seaweedfs/s3.sock',
      filer: '/var/lib/tollgate/seaweedfs/filer.sock',
    });
  });

  it("to weed's default when the longer of the two would pass a socket's 107 bytes", () => {
    // 'filer.sock' and its slash are 11 bytes: a folder of 96 bytes still fits, one of 97 does not.
    const fits = `/${'a'.repeat(95)}`;
    expect(seaweedFsLocalSockets(fits)?.filer).toBe(path.join(fits, 'filer.sock'));
    expect(Buffer.byteLength(path.join(fits, 'filer.sock'))).toBe(107);
    expect(seaweedFsLocalSockets(`/${'a'.repeat(96)}`)).toBeUndefined();
  });
});
