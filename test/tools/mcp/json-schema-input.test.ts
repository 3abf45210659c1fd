import { z } from 'zod';
import { jsonSchemaInput } from '../../../src/tools/mcp';

describe('jsonSchemaInput', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { path: { type: 'string' }, count: { type: 'number', default: 3, maximum: 10 } },
    required: ['path'],
  };

  it("passes arguments that fit the server's schema on unchanged, with no defaults filled in", () => {
    const { inputSchema, parameters } = jsonSchemaInput(schema);
    expect(inputSchema.parse({ path: 'a.txt' })).toEqual({ path: 'a.txt' });
    expect(parameters).toEqual({ type: 'object', properties: schema.properties, required: ['path'] });
  });

  it('names what is wrong with arguments that do not fit, and refuses anything but an object', () => {
    const { inputSchema } = jsonSchemaInput(schema);
    const checked = inputSchema.safeParse({ count: 20 });
    expect(checked.success).toBe(false);
    expect(z.prettifyError(checked.error!)).toMatch(/at path[\s\S]*at count|at count[\s\S]*at path/);
    expect(inputSchema.safeParse('a.txt').success).toBe(false);
  });

  it('gives the model an object schema with properties even when the server sends none', () => {
    expect(jsonSchemaInput({ type: 'object' }).parameters).toEqual({ type: 'object', properties: {} });
    expect(jsonSchemaInput(undefined).parameters).toEqual({ type: 'object', properties: {} });
  });
});
