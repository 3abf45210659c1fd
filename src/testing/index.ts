// `tollgate/testing`: what a team needs to test its own tools through real turns without a real model. The scripted
// model server speaks the OpenAI API (Chat Completions streamed or not, and the Responses API) over HTTP: a test
// scripts the replies, points the worker's `model.baseURL` at the server, and reads what the model was sent.
export {
  startModelServer,
  type ModelServer,
  type ModelServerOptions,
  type ModelErrorReply,
  type ModelReply,
  type RecordedRequest,
  type ScriptedAnswer,
  type ScriptedReply,
  type ScriptedToolCall,
} from '../dev/model-server';
export { scriptedModelSettings } from './scripted-model-settings';
