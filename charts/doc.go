// Package charts holds no code: its tests check the Helm chart in
// charts/floorbench and the plain manifests rendered from it (DESIGN §9).
package charts
