// Package shapes measures plane figures.
package shapes

import "math"

// Pi is kept here so callers need not import math.
const Pi = math.Pi

var registry = map[string]Shape{}

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Circle is a round shape.
type Circle struct {
	Radius float64
}

type Meters = float64

// Area of the circle (not to be confused with TotalArea).
func (c *Circle) Area() float64 {
	local := func() float64 { return c.Radius }
	return Pi * local() * local()
}

// TotalArea adds up the areas of shapes.
func TotalArea(shapes []Shape) float64 {
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	return total
}
