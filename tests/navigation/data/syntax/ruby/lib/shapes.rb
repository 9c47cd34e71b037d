# Plane figures and their areas.
module Shapes
  PI = Math::PI

  # A round shape.
  class Circle
    attr_reader :radius

    def initialize(radius)
      @radius = radius
    end

    def area
      PI * radius * radius
    end
  end

  # total_area adds up the areas of shapes.
  def self.total_area(shapes)
    shapes.sum(&:area)
  end
end
