package report

import "golang.org/x/text/unicode/norm"

// latexASCII maps the characters floorbench's tables use, and those TeX
// treats specially, to input that plain pdflatex (OT1 fonts, no inputenc)
// typesets: the ten specials, the three OT1 prints as other glyphs (<, >
// and |), and the symbols of headers and captions.
var latexASCII = map[rune]string{
	'\\': `\textbackslash{}`, '&': `\&`, '%': `\%`, '$': `\$`, '#': `\#`, '_': `\_`,
	'{': `\{`, '}': `\}`, '~': `\textasciitilde{}`, '^': `\textasciicircum{}`,
	'<': `$<$`, '>': `$>$`, '|': `$|$`,
	'θ': `$\theta$`, 'Δ': `$\Delta$`, 'τ': `$\tau$`, 'µ': `$\mu$`, 'μ': `$\mu$`,
	'−': `$-$`, '≤': `$\leq$`, '≥': `$\geq$`, '±': `$\pm$`, '×': `$\times$`, '≈': `$\approx$`,
	'→': `$\rightarrow$`, '●': `$\bullet$`, '•': `$\bullet$`, '…': `\dots{}`,
	'—': `---`, '–': `--`, '‘': "`", '’': `'`, '“': "``", '”': `''`, '\u00a0': `~`,
}

// latexAccents are TeX's accent commands for the combining marks that
// Latin letters decompose into (é = e + U+0301).
var latexAccents = map[rune]string{
	'\u0300': "\\`", '\u0301': `\'`, '\u0302': `\^`, '\u0303': `\~`, '\u0308': `\"`,
	'\u0327': `\c`, '\u030a': `\r`, '\u030c': `\v`, '\u0304': `\=`,
}

// LaTeXText returns s as LaTeX source of ASCII only: specials escaped,
// known symbols as their commands, accented Latin letters with accent
// commands, and any other character as "?" (pdflatex without packages
// has no glyph for it).
func LaTeXText(s string) string {
	var out []byte
	for _, r := range norm.NFD.String(s) {
		switch {
		case latexASCII[r] != "":
			out = append(out, latexASCII[r]...)
		case latexAccents[r] != "":
			out = withAccent(out, latexAccents[r])
		case r < 0x7f && (r >= ' ' || r == '\t'):
			out = append(out, byte(r))
		case r == '\n':
			out = append(out, ' ')
		default:
			out = append(out, '?')
		}
	}
	return string(out)
}

// withAccent puts accent around the letter just written: "e" becomes
// "\'{e}". A mark that follows no plain letter is dropped.
func withAccent(out []byte, accent string) []byte {
	n := len(out)
	if n == 0 || !('a' <= out[n-1] && out[n-1] <= 'z' || 'A' <= out[n-1] && out[n-1] <= 'Z') {
		return out
	}
	letter := out[n-1]
	out = append(out[:n-1], accent...)
	return append(append(append(out, '{'), letter), '}')
}
