package main

import (
	"fmt"

	"example.com/shapes"
)

func main() {
	// TotalArea of one circle
	fmt.Println(shapes.TotalArea([]shapes.Shape{&shapes.Circle{Radius: 1}}))
}
