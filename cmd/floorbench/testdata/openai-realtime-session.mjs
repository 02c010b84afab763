// One realtime session with the official OpenAI SDK (npm openai, through
// OpenAIRealtimeWS and ws), as TestTheOpenAISDKCompletesASessionOverTLS
// runs it against `floorbench agent serve --protocol realtime --tls-cert
// ...`: usage: node openai-realtime-session.mjs SDK_DIR BASE_URL. It
// configures the session, sends half a second of silence, a second of
// noise and ten of silence, and
// prints one JSON line: the server events' types in order, the audio
// bytes received, the session's type in session.created and the voice and
// instructions session.updated echoes. NODE_EXTRA_CA_CERTS makes Node
// trust the test's CA.
import { createRequire } from 'node:module';
import path from 'node:path';

const [sdkDir, baseURL] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, 'package.json'));
const { OpenAI } = require('openai');
const { OpenAIRealtimeWS } = require('openai/realtime/ws');

const client = new OpenAI({ apiKey: 'sk-floorbench-test', baseURL });
const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, client);
const types = [];
let audioBytes = 0;
let createdType = '';
let updated = {};
const fail = (why) => {
  console.error(why);
  process.exit(1);
};
setTimeout(() => fail('no response.done within 60 s'), 60000).unref();

// pcm is seconds of 24 kHz PCM16, noise-like when loud, as base64.
const pcm = (seconds, loud) => {
  const b = Buffer.alloc(2 * Math.round(24000 * seconds));
  for (let i = 0; loud && i < b.length / 2; i++) b.writeInt16LE(((i * 7919) % 200 - 100) * 80, 2 * i);
  return b.toString('base64');
};

rt.on('error', (err) => fail('SDK error: ' + err.message));
rt.on('event', (e) => types.push(e.type));
rt.on('session.created', (e) => { createdType = e.session.type; });
rt.on('session.updated', (e) => {
  updated = { voice: e.session.audio?.output?.voice, instructions: e.session.instructions };
  // Half a second of silence first: the agent's speech detector learns
  // its noise floor from it.
  for (let i = 0; i < 115; i++) rt.send({ type: 'input_audio_buffer.append', audio: pcm(0.1, i >= 5 && i < 15) });
});
rt.on('response.output_audio.delta', (e) => { audioBytes += Buffer.from(e.delta, 'base64').length; });
rt.on('response.done', (e) => {
  console.log(JSON.stringify({ status: e.response.status, audio_bytes: audioBytes, types, created_type: createdType, updated }));
  rt.close();
  process.exit(0);
});
rt.socket.on('open', () => {
  rt.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['audio'],
      instructions: 'Answer briefly.',
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad' } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' },
      },
    },
  });
});
