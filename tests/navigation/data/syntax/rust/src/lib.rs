//! Plane figures and their areas.

pub const PI: f64 = std::f64::consts::PI;

/// Anything with an area.
pub trait Shape {
    fn area(&self) -> f64;
}

pub struct Circle {
    pub radius: f64,
}

pub enum Unit {
    Meters,
    Feet,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        fn square(x: f64) -> f64 {
            x * x
        }
        PI * square(self.radius)
    }
}

impl Circle {
    pub fn new(radius: f64) -> Self {
        Circle { radius }
    }
}

/// total_area adds up the areas.
pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

pub mod units {
    pub fn to_feet(meters: f64) -> f64 {
        meters * 3.28084
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}
