// Package corpus holds floorbench's native corpus format (DESIGN §2, §4)
// and the generator driver that writes it:
//
//	<dir>/corpus.json              the manifest (Manifest)
//	<dir>/<conv>/speaker_<k>.wav   16 kHz mono PCM16, one per speaker, equal lengths
//	<dir>/<conv>/events.json       the event log (EventLog)
//
// Open loads a corpus for detectors, sweeps and gold derivation; Check
// verifies one (hashes, lengths, event/audio consistency); Gold derives
// the MPTB gold of a split (DESIGN §3.6).
package corpus
