/** The height of a timeline row in CSS pixels: the list places row i at i * ROW_HEIGHT (tests read it too). */
export const ROW_HEIGHT = 32;
