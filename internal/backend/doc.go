// Package backend joins the generator (internal/synth) to its generative
// backends (docs/corpora.md#generative-backends): the openai-chat
// dialogue backend writes stage 1's lines with a language model, the
// openai-speech voice backend renders stage 3's utterances with a speech
// model, both through internal/openai.
//
// # Cache
//
// Every chat answer and every rendered utterance is stored under the hash
// of the request that produced it (keys.ChatAnswer, keys.Speech): the
// model, the prompt or text, the voice and the parameters, not the
// endpoint. A request whose output is stored is not sent, so a corpus made
// once is made again byte for byte from the store, or from a folder
// `corpus export-cache` wrote, without the model. Within one process a
// request is made at most once at a time (the first answer stored is the
// one every conversation uses). The cache is a checking store
// (store.Summing): an output whose bytes no longer match its recorded sum
// is requested again and replaced (Stats.Replaced), and ExportCache
// refuses it.
//
// # Identity
//
// Config.Identity is what a generated corpus records in corpus.json's
// backends and what its hash covers: backend names, models and the
// parameters that decide outputs. The offline default has none, so the
// offline corpus and its hash are what they were before backends existed.
package backend
