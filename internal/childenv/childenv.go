// Package childenv builds the environment of the programs floorbench
// starts (the Temporal dev server, espeak-ng, flite, festival): only what a program
// needs to run, never the credentials floorbench itself was given
// (FLOORBENCH_S3_SECRET_KEY, FLOORBENCH_TEMPORAL_API_KEY, cloud keys).
package childenv

// Passed are the variables a child program gets when they are set: where
// programs and libraries are, the home and temporary folders, the locale
// and the time zone.
var Passed = []string{"PATH", "HOME", "USER", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH"}

// Minimal returns the environment for a child program: the variables of
// Passed and extra that lookup finds, as NAME=value.
func Minimal(lookup func(string) (string, bool), extra ...string) []string {
	env := []string{}
	for _, name := range append(append([]string{}, Passed...), extra...) {
		if v, ok := lookup(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
