// Package keys builds every key of the store and the content hashes that
// name what is stored under them (docs/architecture.md#store-layout,
// docs/architecture.md#identities-and-versions). It is the one place that
// knows the layout: activities, bundles, the command line and the
// orchestration read and write through these functions.
package keys

import (
	"fmt"
	"strings"
	"time"

	"github.com/floorbench/floorbench/internal/digest"
)

// The top-level prefixes of the store.
const (
	Corpora   = "corpora/"   // one native corpus per content hash
	Bundles   = "bundles/"   // one bundle per bundle id
	Inputs    = "inputs/"    // uploaded files by the full SHA-256 of their content
	Sums      = "sums/"      // the sha256 of objects not named by their content
	Specs     = "specs/"     // scheduled sweep specs by the full SHA-256 of their content
	Schedules = "schedules/" // the records of nightly schedules' runs
	// Generative holds the generator's cached chat answers and rendered
	// utterances, each under the hash of the request that produced it.
	Generative = "generative/"
	// ProviderAnswers holds what outside endpoints a system streams audio
	// to answered (a realtime endpoint's speech events for one channel),
	// each under the hash of everything that decided the answer.
	ProviderAnswers = "provider-answers/"
)

// Sum is where the sha256 of the object under key is recorded.
func Sum(key string) string { return Sums + key }

// Summed reports whether the store records the sha256 of the object under
// key (at Sum(key)): every object but those named by the SHA-256 of their
// content (inputs/, specs/), the files of a stored corpus (its manifest
// records their sha256) and the sums themselves. A corpus's corpus.json
// and a generated conversation's entry are summed: a generated corpus is
// named by its recipe, not its manifest's content.
func Summed(key string) bool {
	switch {
	case strings.HasPrefix(key, Inputs), strings.HasPrefix(key, Specs), strings.HasPrefix(key, Sums):
		return false
	case strings.HasPrefix(key, Corpora):
		rest := strings.Split(strings.TrimPrefix(key, Corpora), "/")
		return (len(rest) == 2 && rest[1] == "corpus.json") || (len(rest) == 3 && rest[1] == "entries")
	}
	return true
}

// Named is the full hex SHA-256 that key names, for the objects stored
// under the SHA-256 of their content (an uploaded input, a scheduled
// spec); ok is false for every other key.
func Named(key string) (sha string, ok bool) {
	if sha, ok = strings.CutPrefix(key, Inputs); ok {
		return sha, true
	}
	if rest, ok := strings.CutPrefix(key, Specs); ok {
		return strings.TrimSuffix(rest, ".yaml"), true
	}
	return "", false
}

// IsBundleID reports whether s has the form of a bundle id: a Hash, or
// the 24 hex digits of a bundle stored before bundle ids were Hashes
// (docs/architecture.md#identities-and-versions), which stay readable.
func IsBundleID(s string) bool {
	return (len(s) == 32 || len(s) == 24) && strings.Trim(s, "0123456789abcdef") == ""
}

// GeneratedCorpus is the hash of a generated corpus: what decides its
// bytes, the preset, the seed, the generator's version and the identities
// of its generative backends (nil: the offline ones), and not the
// binary's revision, so a change elsewhere reuses the audio.
func GeneratedCorpus(preset string, seed uint64, generator int, backends any) string {
	recipe := fmt.Appendf(nil, "mptb-generate\x00%s\x00%d\x00%d", preset, seed, generator)
	if backends != nil {
		recipe = append(append(recipe, 0), hashJSON(backends)...)
	}
	return digest.Identity(recipe)
}

// ChatAnswer is where the answer to a chat request is cached: under the
// hash of the request's body (model, messages, sampling parameters).
func ChatAnswer(request []byte) string {
	return Generative + "chat/" + digest.Identity(request) + ".json"
}

// Speech is where the audio of a speech request is cached: under the
// hash of the request's body (model, text, voice, format).
func Speech(request []byte) string {
	return Generative + "speech/" + digest.Identity(request)
}

// ProviderAnswer is where an endpoint's answer to one request is cached:
// under the request's identity hash (detect.AnswerCache: the endpoint,
// its settings and the SHA-256 of the audio sent).
func ProviderAnswer(request string) string {
	return ProviderAnswers + request + ".json"
}

// IsGenerative reports whether key is a cached generative output, the
// only keys a corpus.json may list as its sources.
func IsGenerative(key string) bool {
	rest, ok := strings.CutPrefix(key, Generative)
	if !ok {
		return false
	}
	kind, name, ok := strings.Cut(rest, "/")
	hash := strings.TrimSuffix(name, ".json")
	return ok && (kind == "chat" && name == hash+".json" || kind == "speech" && name == hash) && len(hash) == 32 && isHex(hash)
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// Corpus is the prefix of the corpus with the given hash.
func Corpus(hash string) string { return Corpora + hash }

// Entry is the manifest entry of a generated conversation under a corpus
// prefix: the mark that the conversation is complete.
func Entry(prefix, conv string) string { return Entries(prefix) + conv + ".json" }

// Track is a system's probability file on one conversation and task
// ("eot" or "int").
func Track[T ~string](systemHash, corpusHash, conv string, task T) string {
	return fmt.Sprintf("tracks/%s/%s/%s.%s.json", systemHash, corpusHash, conv, task)
}

// ModelOutput is a model stage's output on one conversation
// (detect.ModelOutput): modelHash is the stage's identity
// (detect.System.ModelHash), shared by every system that runs the same
// model with the same model-stage parameters.
func ModelOutput(modelHash, corpusHash, conv string) string {
	return fmt.Sprintf("model-outputs/%s/%s/%s.bin", modelHash, corpusHash, conv)
}

// Evaluation is where an evaluation of a system on a corpus is stored;
// identity is everything else that determines it (protocol version and
// constants, resamples, seed, transfer source), hashed as JSON.
func Evaluation(systemHash, corpusHash string, identity any) string {
	return fmt.Sprintf("evaluations/%s/%s/%s.json", systemHash, corpusHash, hashJSON(identity))
}

// Audit is where a corpus's audit is stored; identity is everything that
// determines it (audit version and options), hashed as JSON.
func Audit(corpusHash string, identity any) string {
	return fmt.Sprintf("audits/%s/%s.json", corpusHash, hashJSON(identity))
}

// Input is where an uploaded file is stored: under the hex SHA-256 of its
// content.
func Input(sha string) string { return Inputs + sha }

// Bundle is where file name of bundle id is stored; name "" gives the
// bundle's prefix.
func Bundle(id, name string) string { return Bundles + id + "/" + name }

// The files of a bundle that readers find by name. The manifest is stored
// last: a bundle whose manifest is stored is complete.
const (
	ManifestFile = "manifest.json"
	ResultsFile  = "results.json"
)

// BundleManifest is the key of bundle id's manifest.
func BundleManifest(id string) string { return Bundle(id, ManifestFile) }

// BundleResults is the key of bundle id's results.
func BundleResults(id string) string { return Bundle(id, ResultsFile) }

// BundleOfManifest is the bundle id whose manifest is stored under key;
// ok is false for any other key.
func BundleOfManifest(key string) (id string, ok bool) {
	id, ok = strings.CutSuffix(strings.TrimPrefix(key, Bundles), "/"+ManifestFile)
	return id, ok && strings.HasPrefix(key, Bundles) && id != "" && !strings.Contains(id, "/")
}

// Spec is where a scheduled spec is stored: under the hex SHA-256 of its
// content, so the same spec is stored once whatever schedules use it.
func Spec(sha string) string { return Specs + sha + ".yaml" }

// ScheduleRuns is the folder of a schedule's run records.
func ScheduleRuns(schedule string) string { return Schedules + schedule + "/runs/" }

// runTimeLayout names a run by its scheduled time in UTC; it sorts as time
// does and is a valid store key segment.
const runTimeLayout = "20060102T150405Z"

// ScheduleRun is the folder of the run of schedule scheduled at the given
// time.
func ScheduleRun(schedule string, scheduled time.Time) string {
	return ScheduleRuns(schedule) + scheduled.UTC().Format(runTimeLayout) + "/"
}

// ScheduleOf is the schedule whose records hold key; ok is false for a key
// outside schedules/.
func ScheduleOf(key string) (schedule string, ok bool) {
	rest, ok := strings.CutPrefix(key, Schedules)
	schedule, _, _ = strings.Cut(rest, "/")
	return schedule, ok && schedule != ""
}

// hashJSON is Hash of v encoded as JSON. The identities hashed are plain
// structs of numbers and strings, which always encode.
func hashJSON(v any) string {
	h, err := digest.IdentityJSON(v)
	if err != nil {
		panic(fmt.Sprintf("keys: identity %T does not encode: %v", v, err))
	}
	return h
}
