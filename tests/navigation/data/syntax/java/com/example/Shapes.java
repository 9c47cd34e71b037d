package com.example;

import java.util.List;

/** Plane figures and their areas. */
public final class Shapes {
    public static final double PI = Math.PI;

    private Shapes() {}

    /** Anything with an area. */
    public interface Shape {
        double area();
    }

    public enum Unit { METERS, FEET }

    public record Circle(double radius) implements Shape {
        @Override
        public double area() {
            return PI * radius * radius;
        }
    }

    /** totalArea adds up the areas of shapes. */
    public static double totalArea(List<Shape> shapes) {
        double total = 0;
        for (Shape s : shapes) {
            total += s.area();
        }
        return total;
    }
}
