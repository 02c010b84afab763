// Package openai speaks the two OpenAI-compatible APIs the generator's
// generative backends use (docs/corpora.md#generative-backends):
// chat completions (POST {endpoint}/chat/completions) and speech
// (POST {endpoint}/audio/speech), as vLLM, llama.cpp's server, Ollama,
// Kokoro-FastAPI and Piper wrappers serve them.
//
// # Operations
//
// A Client bounds the requests it keeps in flight (Options.Concurrency),
// gives every attempt a deadline (Options.Timeout) and retries transport
// failures, 408, 429 and 5xx answers with doubling back-off
// (Options.Attempts, Options.Backoff; a Retry-After of up to a minute is
// honoured). Other answers fail at once. The API key is a credential.Secret:
// it is sent in the Authorization header and never printed, and errors
// name the endpoint without its user, query or fragment.
package openai
