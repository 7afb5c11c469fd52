print("cellmotion: placeholder")
