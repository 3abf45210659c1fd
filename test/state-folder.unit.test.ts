import path from 'node:path';
import { stateFolderFromEnvironment } from '../src/state-folder';

describe('the state folder', () => {
  it('is .tollgate under the working directory unless TOLLGATE_STATE_DIR names another, as an absolute path', () => {
    expect(stateFolderFromEnvironment({})).toBe(path.resolve('.tollgate'));
    expect(stateFolderFromEnvironment({ TOLLGATE_STATE_DIR: '  ' })).toBe(path.resolve('.tollgate'));
    expect(stateFolderFromEnvironment({ TOLLGATE_STATE_DIR: 'state' })).toBe(path.resolve('state'));
    expect(stateFolderFromEnvironment({ TOLLGATE_STATE_DIR: ' /srv/tollgate ' })).toBe('/srv/tollgate');
  });
});
