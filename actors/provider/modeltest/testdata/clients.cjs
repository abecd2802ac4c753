// Reads the model stand-in's answers with the providers' own client libraries
// (@anthropic-ai/sdk, openai: Messages, Responses, Chat Completions) and prints what they parsed as one JSON object
// (actors/provider/modeltest/clients_test.go). Usage: node clients.cjs <node_modules dir> <base url>
'use strict';
const path = require('node:path');
const [dir, base] = process.argv.slice(2);
const Anthropic = require(path.join(dir, '@anthropic-ai/sdk')).default;
const OpenAI = require(path.join(dir, 'openai')).default;

const bash = { name: 'Bash', description: 'run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } };
const user = (text) => [{ role: 'user', content: text }];

async function failure(p) {
  try {
    await p;
    return { error: 'none' };
  } catch (e) {
    return { name: e.constructor.name, status: e.status, type: e.error && e.error.error && e.error.error.type,
      retryAfter: e.headers && e.headers.get('retry-after'), codexUsed: e.headers && e.headers.get('x-codex-primary-used-percent'),
      unified: e.headers && e.headers.get('anthropic-ratelimit-unified-status') };
  }
}

async function main() {
  const out = {};
  const a = new Anthropic({ baseURL: base, apiKey: 'x', maxRetries: 0 });
  const model = 'claude-sonnet-4-5';
  out.anthropicStream = await a.messages.stream({ model, max_tokens: 100, tools: [bash], messages: user('say=hello think=pondering tokens=5,7,3,2 stream_ms=5') }).finalMessage();
  out.anthropicTool = await a.messages.stream({ model, max_tokens: 100, tools: [bash], messages: user('tool=bash:echo_hi say=after') }).finalMessage();
  out.anthropicFollowUp = await a.messages.stream({ model, max_tokens: 100, tools: [bash], messages: [
    { role: 'user', content: 'tool=bash:echo_hi say=after' },
    { role: 'assistant', content: [out.anthropicTool.content[0]] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: out.anthropicTool.content[0].id, content: 'hi' }] },
  ] }).finalMessage();
  out.anthropicPlain = await a.messages.create({ model, max_tokens: 100, messages: user('say=plain') });
  out.anthropicCount = await a.messages.countTokens({ model, messages: user('say=count') });
  out.anthropicModels = [];
  for await (const m of a.models.list()) out.anthropicModels.push(m.id);
  out.anthropicLimit = await failure(a.messages.create({ model, max_tokens: 10, messages: user('limit=429 reset=60') }));
  out.anthropicOverloaded = await failure(a.messages.create({ model, max_tokens: 10, messages: user('overloaded') }));

  const o = new OpenAI({ baseURL: base + '/v1', apiKey: 'x', maxRetries: 0 });
  const shell = { type: 'function', name: 'shell_command', parameters: { type: 'object', properties: { command: { type: 'string' } } } };
  const exec = { type: 'custom', name: 'exec' };
  out.openaiStream = await o.responses.stream({ model: 'gpt-5', tools: [shell], input: 'say=hello tokens=5,7,3 stream_ms=5' }).finalResponse();
  out.openaiEvents = [];
  for await (const e of await o.responses.create({ model: 'gpt-5', input: 'say=events', stream: true })) out.openaiEvents.push(e.type);
  out.openaiTool = await o.responses.stream({ model: 'gpt-5', tools: [shell], input: 'tool=bash:echo_hi' }).finalResponse();
  out.openaiCustom = await o.responses.stream({ model: 'gpt-5', tools: [exec], input: 'tool=bash:echo_hi' }).finalResponse();
  out.openaiFollowUp = await o.responses.stream({ model: 'gpt-5', tools: [shell], input: [
    { role: 'user', content: 'tool=bash:echo_hi say=after' },
    out.openaiTool.output[0],
    { type: 'function_call_output', call_id: out.openaiTool.output[0].call_id, output: 'hi' },
  ] }).finalResponse();
  out.openaiSchema = await o.responses.stream({ model: 'gpt-5', tools: [exec], input: 'Title this:\nstall tool=bash:echo_hi say=Fixit',
    text: { format: { type: 'json_schema', name: 't', strict: true, schema: { type: 'object', properties: { title: { type: 'string', maxLength: 3 } }, required: ['title'] } } } }).finalResponse();
  out.openaiPlain = await o.responses.create({ model: 'gpt-5', input: 'say=plain' });
  out.openaiLimit = await failure(o.responses.create({ model: 'gpt-5', input: 'limit=429 reset=60' }));

  // Chat Completions, as the OpenAI-compatible agent CLIs call it.
  const fn = { type: 'function', function: { name: 'run_shell_command', parameters: { type: 'object', properties: { command: { type: 'string' } } } } };
  const pick = (c) => ({ message: c.choices[0].message, finish_reason: c.choices[0].finish_reason, usage: c.usage });
  out.chatStream = pick(await o.chat.completions.stream({ model: 'gpt-5', tools: [fn], stream_options: { include_usage: true },
    messages: user('say=hello think=pondering tokens=5,7,3 stream_ms=5') }).finalChatCompletion());
  out.chatChunks = [];
  for await (const c of await o.chat.completions.create({ model: 'gpt-5', stream: true, messages: user('say=chunks think=hm') })) {
    out.chatChunks.push(c.object + ':' + (c.choices[0] ? JSON.stringify(c.choices[0].delta) + ':' + c.choices[0].finish_reason : 'usage'));
  }
  out.chatTool = pick(await o.chat.completions.stream({ model: 'gpt-5', tools: [fn], messages: user('tool=bash:echo_hi say=after') }).finalChatCompletion());
  out.chatFollowUp = pick(await o.chat.completions.stream({ model: 'gpt-5', tools: [fn], messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'tool=bash:echo_hi say=after' }] },
    out.chatTool.message,
    { role: 'tool', tool_call_id: out.chatTool.message.tool_calls[0].id, content: 'hi' },
  ] }).finalChatCompletion());
  out.chatPlain = pick(await o.chat.completions.create({ model: 'gpt-5', tools: [fn], messages: user('say=plain tool=bash:ls tokens=4,2') }));
  out.chatSchema = pick(await o.chat.completions.create({ model: 'gpt-5', messages: user('stall say=Fixit'),
    response_format: { type: 'json_schema', json_schema: { name: 't', strict: true, schema: { type: 'object', properties: { title: { type: 'string', maxLength: 3 } }, required: ['title'] } } } }));
  out.chatModels = [];
  for await (const m of o.models.list()) out.chatModels.push(m.id);
  out.chatLimit = await failure(o.chat.completions.create({ model: 'gpt-5', messages: user('limit=429 reset=60 say=chat') }));
  out.chatOverloaded = await failure(o.chat.completions.create({ model: 'gpt-5', messages: user('overloaded say=chat') }));
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
