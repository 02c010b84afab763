// Package report renders floorbench results for people and programs: JSON
// shapes with undefined rates as null, and tables in Markdown, CSV, LaTeX
// and plain text.
package report
